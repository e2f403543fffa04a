"""Transcripts: the complete, typed, versioned record of one episode as JSON lines.

- ``events``: the event models (a discriminated union on ``type``, ``schema_version``);
- ``io``: ``TranscriptWriter`` (append, gzip, flush per event, images once by hash),
  ``TranscriptStream`` (events one at a time, model calls whole; tolerates a torn last
  line) and ``read_transcript`` (all of one in memory);
- ``callstore``: how a model call is stored (a request as a patch on the previous call's,
  ``patch``; long strings capped, ``cap``) and rebuilt;
- ``recorder``: ``EpisodeRecorder``, the bridge from the episode runner's ``observer`` and the
  LLM agent's ``on_call`` to events.
"""

from .callstore import CallEncoder, CallExpander, expand_calls
from .cap import CAP_CHARS
from .events import (
    READ_VERSIONS,
    SCHEMA_VERSION,
    ActionEvent,
    ContextExhaustedEvent,
    End,
    Event,
    Header,
    InfrastructureErrorEvent,
    ModelCall,
    ObservationEvent,
    PhaseEnd,
    PhaseStart,
    Score,
    ToolCallEvent,
    parse_event,
)
from .io import (
    IMAGES_DIR,
    TRANSCRIPT_SUFFIX,
    TRANSCRIPT_SUFFIXES,
    Transcript,
    TranscriptError,
    TranscriptStream,
    TranscriptWriter,
    job_of,
    read_transcript,
    transcript_files,
    transcript_name,
)
from .recorder import EpisodeRecorder

__all__ = ["SCHEMA_VERSION", "READ_VERSIONS", "Event", "Header", "PhaseStart",
           "ObservationEvent", "ModelCall", "ToolCallEvent", "ActionEvent", "PhaseEnd",
           "Score", "InfrastructureErrorEvent", "ContextExhaustedEvent", "End", "parse_event",
           "TranscriptWriter", "Transcript",
           "TranscriptStream", "TranscriptError", "read_transcript", "transcript_files",
           "transcript_name", "job_of", "IMAGES_DIR", "TRANSCRIPT_SUFFIX", "TRANSCRIPT_SUFFIXES",
           "EpisodeRecorder", "CallEncoder", "CallExpander", "expand_calls", "CAP_CHARS"]
