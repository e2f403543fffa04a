"""Agent tools in a replay: every result comes from the transcript, nothing is run again.

``RecordedTools(path)`` reads a transcript's ``tool_call`` events in order as the replayed
agent asks for them. Each call must be the recorded one at that point (the same tool and
arguments, phase, step, model call and index) or the replay stops with a
``ToolReplayMismatch`` naming the transcript and the call; the recorded status, result and
detail are returned as they were. So an episode that used the python or autumn tool replays
byte for byte offline without a sandbox or an interpreter run, and a changed agent is caught
at the first call it makes differently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .toolbox import ToolRecord, ToolReplayMismatch

__all__ = ["RecordedTools", "COMPARED"]

COMPARED = ("index", "call_index", "phase", "step", "tool", "arguments")


class RecordedTools:
    """The recorded tool calls of the transcript at ``path`` (module docstring)."""

    def __init__(self, path: str | Path) -> None:
        from ..transcripts import TranscriptStream

        self.path = Path(path)
        self._events = (e for e in TranscriptStream(self.path, expand=False)
                        if e.type == "tool_call")
        self.used = 0

    def take(self, record: ToolRecord) -> dict[str, Any]:
        """The recorded outcome of the call ``record`` describes (its status and result not
        yet set), after checking it is the recorded call."""
        from llm_eval.adapters.classify import scrub

        recorded = next(self._events, None)
        asked = scrub(record.to_dict())   # as the recorder stored it
        if recorded is None:
            raise ToolReplayMismatch(
                f"replay mismatch: {self.path}: the job made tool call {record.index} "
                f"({record.tool}, phase {record.phase}, step {record.step}), but the "
                f"transcript has only {self.used}")
        for key in COMPARED:
            if getattr(recorded, key) != asked[key]:
                raise ToolReplayMismatch(
                    f"replay mismatch: {self.path}: tool call {record.index} ({record.tool}, "
                    f"phase {record.phase}, step {record.step}): {key} is "
                    f"{_short(asked[key])}, the transcript recorded "
                    f"{_short(getattr(recorded, key))}")
        if record.status == "refused" and recorded.status != "refused":
            raise ToolReplayMismatch(
                f"replay mismatch: {self.path}: tool call {record.index} is refused by its "
                f"caps now; the transcript recorded it {recorded.status}")
        self.used += 1
        return {"status": recorded.status, "result": recorded.result,
                "detail": dict(recorded.detail)}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
