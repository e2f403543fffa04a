"""The script agent: plays the action lines of a file, in order, then stops the episode.

``llm-eval episode WORLD --agent script/FILE`` makes conformance checks and bug reports
reproducible: every line of FILE is one action sent verbatim (after removing the line end),
whatever the phase, in the protocol's own words (under ``--protocol autumnbench`` the harness's
strings, e.g. ``I found the change!``, ``choose_frame_3``, ``Submit choice``,
``choose_option_2``). Blank lines and lines starting with ``#`` are skipped. When the lines run
out the agent raises ``StopEpisode``: the episode ends there and its test is scored as it
stands. A file that cannot be read is a ``ScriptError`` naming it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import LlmEvalError
from ..worldtest.episode import StopEpisode
from ..worldtest.observation import EpisodeStart, Observation

__all__ = ["ScriptAgent", "ScriptError", "read_script"]


class ScriptError(LlmEvalError):
    """A script file that cannot be read; names the file."""


def read_script(path: str | Path) -> tuple[str, ...]:
    """The actions of a script file (module docstring)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"{path}: cannot read the script: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ScriptError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return tuple(line.rstrip("\r") for line in text.split("\n")
                 if line.strip() and not line.lstrip().startswith("#"))


class ScriptAgent:
    """Sends the script's lines one per step (module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.name = f"script/{path}"
        self.actions = read_script(path)
        self._next = 0

    def reset(self, start: EpisodeStart) -> None:
        self._next = 0

    def act(self, observation: Observation) -> str:
        if self._next >= len(self.actions):
            raise StopEpisode(f"the script {self.path} has no more actions")
        action = self.actions[self._next]
        self._next += 1
        return action
