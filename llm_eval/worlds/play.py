"""``llm-eval play``: a person plays a world in the terminal.

Keys: arrow keys for left/right/up/down; ``c`` then ``X Y`` and Enter to click (or a mouse
click on a cell, where the terminal reports mice: xterm SGR mode 1006); ``n`` or space for
noop; ``r`` to reset; ``q`` (or Ctrl-C) to quit. The screen shows the world, the seed, the step
count, the last action and its outcome, and the grid in 24-bit colour with each cell's
compact-grid symbol and the legend, so a plain-text copy of the screen still reads.

The session is split in two: ``PlaySession`` (pure: events in, screen lines out; tested
directly) and ``run_terminal`` (raw mode, mouse reporting, the read loop), which is tested for
real through tmux.
"""

from __future__ import annotations

import os
import re
import select
import sys
from dataclasses import dataclass

from ..errors import AutumnError
from ..render import compact_legend
from ..render.compact import quote_name
from ..render.terminal import cell_at, render_ansi
from .errors import WorldStateError
from .world import World

__all__ = ["PlaySession", "Key", "MouseClick", "KeyDecoder", "run_terminal"]

HELP = "arrows move | c X Y Enter: click (or use the mouse) | n/space: noop | r: reset | q: quit"
TITLE_LINES = 1  # lines above the grid's column numbers


@dataclass(frozen=True, slots=True)
class Key:
    """A key press: an arrow name, 'enter', 'escape', 'backspace', or one character."""

    name: str


@dataclass(frozen=True, slots=True)
class MouseClick:
    """A left-button press at a 0-based terminal column and row."""

    column: int
    row: int


_ARROWS = {"A": "up", "B": "down", "C": "right", "D": "left"}
_SGR_MOUSE = re.compile(r"\x1b\[<(\d+);(\d+);(\d+)([Mm])")
_CSI = re.compile(r"\x1b(?:\[|O)[0-9;<]*[A-Za-z~]")


class KeyDecoder:
    """Turns terminal input text into events; keeps an unfinished escape sequence for later."""

    def __init__(self) -> None:
        self.pending = ""

    def feed(self, text: str, *, final: bool = False) -> list[Key | MouseClick]:
        """Decode ``text``; with ``final``, a lone trailing ESC is the Escape key."""
        data = self.pending + text
        self.pending = ""
        events: list[Key | MouseClick] = []
        i = 0
        while i < len(data):
            ch = data[i]
            if ch != "\x1b":
                events.append(_plain_key(ch))
                i += 1
                continue
            mouse = _SGR_MOUSE.match(data, i)
            if mouse:
                button, column, row, kind = mouse.groups()
                if kind == "M" and int(button) == 0:
                    events.append(MouseClick(int(column) - 1, int(row) - 1))
                i = mouse.end()
                continue
            csi = _CSI.match(data, i)
            if csi:
                final_char = csi.group()[-1]
                if final_char in _ARROWS:
                    events.append(Key(_ARROWS[final_char]))
                i = csi.end()  # other sequences (function keys...) are ignored
                continue
            rest = data[i:]
            if not final and (rest == "\x1b" or rest.startswith(("\x1b[", "\x1bO"))):
                self.pending = rest  # wait for the rest of the sequence
                break
            events.append(Key("escape"))
            i += 1
        return events


def _plain_key(ch: str) -> Key:
    if ch in "\r\n":
        return Key("enter")
    if ch in "\x7f\x08":
        return Key("backspace")
    if ch == "\x03":
        return Key("q")  # Ctrl-C quits
    return Key(ch)


class PlaySession:
    """The state of a play session: the world, the click prompt, the last outcome."""

    def __init__(self, world: World, *, name: str) -> None:
        self.world = world
        self.name = name
        self.prompt: str | None = None  # the text typed after 'c', while it is being typed
        self.message = "new world: " + HELP
        self.last_action = "-"
        self.running = True
        self.resets = 0
        try:
            self.frame = world.frame
        except WorldStateError:  # not reset yet
            self.frame, _ = world.reset()

    def handle(self, event: Key | MouseClick) -> None:
        """Apply one input event."""
        if isinstance(event, MouseClick):
            cell = cell_at(self.frame.size, event.column, event.row - TITLE_LINES)
            if cell is None:
                self.message = "that click is outside the grid"
            else:
                self._act(f"click {cell[0]} {cell[1]}")
            return
        name = event.name
        if self.prompt is not None:
            self._prompt_key(name)
        elif name in ("left", "right", "up", "down"):
            self._act(name)
        elif name in ("n", " "):
            self._act("noop")
        elif name == "c":
            self.prompt = ""
            self.message = "click: type X Y, then Enter (Escape cancels)"
        elif name == "r":
            self.frame, _ = self.world.reset()
            self.resets += 1
            self.last_action = "reset"
            self.message = "the world is back at its initial state"
        elif name == "q":
            self.running = False
        elif name not in ("enter", "escape"):
            self.message = f"unknown key {name!r}: {HELP}"

    def _prompt_key(self, name: str) -> None:
        if name == "enter":
            text, self.prompt = self.prompt or "", None
            self._act(f"click {text.strip()}")
        elif name == "escape":
            self.prompt = None
            self.message = "click cancelled"
        elif name == "backspace":
            self.prompt = (self.prompt or "")[:-1]
        elif len(name) == 1 and (name.isdigit() or name in " -"):
            self.prompt = (self.prompt or "") + name

    def _act(self, action: str) -> None:
        try:
            self.frame, _, _, _, info = self.world.step(action)
        except AutumnError as exc:
            self.message = f"the program failed: {exc} (press r to reset)"
            return
        if "invalid_action" in info:
            self.message = f"invalid action: {info['invalid_action']}"
        else:
            self.last_action = info["action"]
            self.message = ""

    def screen(self) -> list[str]:
        """The screen as lines with colour escapes (no clearing codes)."""
        world = self.world
        title = (f"llm-eval play: {self.name}   seed {world.seed}   step {world.steps}   "
                 f"resets {self.resets}   last: {self.last_action}")
        lines = [title]
        lines += render_ansi(self.frame, symbols=True)
        legend = compact_legend(self.frame)
        lines.append("legend: " + "  ".join(f"{s}={quote_name(c)}" for c, s in legend.items()))
        lines.append(f"click> {self.prompt}_" if self.prompt is not None else self.message)
        lines.append(HELP)
        return lines


def run_terminal(session: PlaySession, fd_in: int | None = None, out=None) -> None:
    """Play in the terminal: raw mode, mouse reporting on, redraw after every event."""
    import termios
    import tty

    fd = sys.stdin.fileno() if fd_in is None else fd_in
    out = sys.stdout if out is None else out
    saved = termios.tcgetattr(fd)
    # alternate screen, hide the cursor, report mouse presses in SGR form
    out.write("\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1006h")
    decoder = KeyDecoder()
    try:
        tty.setraw(fd)
        _draw(session, out)
        while session.running:
            readable, _, _ = select.select([fd], [], [], 0.05 if decoder.pending else None)
            if not readable:
                events = decoder.feed("", final=True)
            else:
                data = os.read(fd, 1024)
                if not data:
                    break
                events = decoder.feed(data.decode("utf-8", errors="replace"))
            for event in events:
                session.handle(event)
                if not session.running:
                    break
            _draw(session, out)
    finally:
        out.write("\x1b[?1006l\x1b[?1000l\x1b[?25h\x1b[?1049l")
        out.flush()
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _draw(session: PlaySession, out) -> None:
    out.write("\x1b[H\x1b[2J" + "\r\n".join(line + "\x1b[K" for line in session.screen()))
    out.flush()
