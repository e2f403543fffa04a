"""Transcripts: the complete, typed, versioned record of one episode as JSON lines.

- ``events``: the event models (a discriminated union on ``type``, ``schema_version``);
- ``io``: ``TranscriptWriter`` (append, flush per event, images once by hash) and
  ``read_transcript`` (tolerates a torn last line);
- ``recorder``: ``EpisodeRecorder``, the bridge from the episode runner's ``observer`` and the
  LLM agent's ``on_call`` to events.
"""

from .events import (SCHEMA_VERSION, ActionEvent, End, Event, Header, InfrastructureErrorEvent,
                     ModelCall, ObservationEvent, PhaseEnd, PhaseStart, Score, parse_event)
from .io import IMAGES_DIR, Transcript, TranscriptError, TranscriptWriter, read_transcript
from .recorder import EpisodeRecorder

__all__ = ["SCHEMA_VERSION", "Event", "Header", "PhaseStart", "ObservationEvent", "ModelCall",
           "ActionEvent", "PhaseEnd", "Score", "InfrastructureErrorEvent", "End", "parse_event",
           "TranscriptWriter", "Transcript", "TranscriptError", "read_transcript", "IMAGES_DIR",
           "EpisodeRecorder"]
