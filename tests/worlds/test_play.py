"""``llm-eval play``: key decoding and the session logic directly, then a real terminal session
through tmux (skipped when tmux is absent)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from world_programs import DOT, dot_grid

from llm_eval.worlds import World
from llm_eval.worlds.play import Key, KeyDecoder, MouseClick, PlaySession

REPO = Path(__file__).resolve().parents[2]
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


# --- decoding terminal input -------------------------------------------------------------------

def test_decoder_reads_keys_arrows_and_mouse_presses() -> None:
    decoder = KeyDecoder()
    events = decoder.feed("\x1b[A\x1b[B\x1b[C\x1b[DnC\r\x7f\x03 \x1bOA")
    assert events == [Key("up"), Key("down"), Key("right"), Key("left"), Key("n"), Key("C"),
                      Key("enter"), Key("backspace"), Key("q"), Key(" "), Key("up")]
    # SGR mouse: a left press counts; its release and other buttons do not.
    assert decoder.feed("\x1b[<0;12;6M\x1b[<0;12;6m\x1b[<2;3;3M") == [MouseClick(11, 5)]
    assert decoder.feed("\x1b[15~") == []  # function keys are ignored


def test_decoder_waits_for_split_sequences() -> None:
    decoder = KeyDecoder()
    assert decoder.feed("\x1b") == [] and decoder.pending == "\x1b"
    assert decoder.feed("[") == []
    assert decoder.feed("<0;4;2") == []
    assert decoder.feed("M") == [MouseClick(3, 1)]
    assert decoder.feed("\x1b") == []
    assert decoder.feed("", final=True) == [Key("escape")]


# --- the session -------------------------------------------------------------------------------

@pytest.fixture
def session() -> PlaySession:
    return PlaySession(World(DOT, name="dot", seed=3), name="dot")


def plain(session: PlaySession) -> list[str]:
    return [ESCAPE.sub("", line) for line in session.screen()]


def test_screen_shows_title_grid_legend_and_help(session: PlaySession) -> None:
    lines = plain(session)
    assert lines[0].split() == ["llm-eval", "play:", "dot", "seed", "3", "step", "0",
                                "resets", "0", "last:", "-"]
    assert lines[1:5] == ["  0 1 2 ", "0 . . . ", "1 r . . ", "2 . . . "]
    assert lines[5] == "legend: .=black  r=red"
    assert lines[-1].startswith("arrows move | c X Y Enter: click")


def test_arrows_noop_click_prompt_reset_and_quit(session: PlaySession) -> None:
    session.handle(Key("right"))
    assert session.frame.grid == dot_grid(1, 1) and session.world.steps == 1
    session.handle(Key(" "))
    session.handle(Key("n"))
    assert session.world.steps == 3 and session.last_action == "noop"
    for key in ("c", "2", " ", "0", "x", "9", "backspace", "enter"):
        session.handle(Key(key))
    assert session.frame.grid == dot_grid(2, 0) and session.last_action == "click 2 0"
    assert "step 4" in plain(session)[0]
    session.handle(Key("r"))
    assert session.frame.grid == dot_grid(0, 1) and session.resets == 1
    assert "step 0" in plain(session)[0] and "resets 1" in plain(session)[0]
    session.handle(Key("q"))
    assert not session.running


def test_click_prompt_shows_what_is_typed_and_escape_cancels(session: PlaySession) -> None:
    session.handle(Key("c"))
    session.handle(Key("1"))
    assert plain(session)[-2] == "click> 1_"
    session.handle(Key("escape"))
    assert plain(session)[-2] == "click cancelled" and session.world.steps == 0


def test_bad_clicks_are_reported_not_raised(session: PlaySession) -> None:
    for key in ("c", "7", " ", "1", "enter"):
        session.handle(Key(key))
    assert "invalid action: click 7 1 is outside the 3x3 grid" in plain(session)[-2]
    for key in ("c", "enter"):
        session.handle(Key(key))
    assert "invalid action: click takes two integers" in plain(session)[-2]
    session.handle(MouseClick(40, 3))
    assert plain(session)[-2] == "that click is outside the grid"
    assert session.world.steps == 0 and session.world.invalid_actions == 2


def test_mouse_clicks_land_on_the_cell_under_them(session: PlaySession) -> None:
    # Screen row 0 is the title, row 1 the column numbers; cell (x, y) is at column 2 + 2x.
    session.handle(MouseClick(2 + 2 * 2 + 1, 2 + 1))
    assert session.frame.grid == dot_grid(2, 1) and session.last_action == "click 2 1"


def test_unknown_keys_explain_the_keys(session: PlaySession) -> None:
    session.handle(Key("z"))
    assert plain(session)[-2].startswith("unknown key 'z': arrows move")


# --- a real terminal ---------------------------------------------------------------------------

class Tmux:
    """A tmux server of our own (its own socket), running one command in a fixed-size pane."""

    def __init__(self, command: str, width: int = 100, height: int = 32) -> None:
        self.socket = f"llm-eval-test-{uuid.uuid4().hex[:8]}"
        self.run("new-session", "-d", "-s", "play", "-x", str(width), "-y", str(height), command)

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                              text=True, timeout=20)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.run("send-keys", "-t", "play", *(("-l",) if literal else ()), *keys)

    def screen(self, colours: bool = False) -> str:
        return self.run("capture-pane", "-t", "play", "-p", *(("-e",) if colours else ()))

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=20)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_play_in_a_real_terminal() -> None:
    command = (f"cd {REPO} && {sys.executable} -m llm_eval play examples/bouncer.sexp --seed 7;"
               " echo EXIT=$?; sleep 60")
    tmux = Tmux(command)
    try:
        screen = tmux.wait_for("step 0")
        assert "seed 7" in screen and "legend: .=black  r=red  w=white" in screen
        assert "\n7 . . . w w w . ." in screen  # the paddle on the bottom row
        coloured = tmux.screen(colours=True)
        assert "48;2;255;0;0m" in coloured and "48;2;255;255;255m" in coloured
        tmux.keys("Right")
        screen = tmux.wait_for("step 1")
        assert "last: right" in screen and "\n7 . . . . w w w ." in screen
        tmux.keys("c")
        tmux.wait_for("click> _")
        tmux.keys("5 3", literal=True)
        tmux.keys("Enter")
        screen = tmux.wait_for("step 2")
        assert "last: click 5 3" in screen and "\n3 . . . r . y . ." in screen
        # a mouse press on cell (1, 5): 1-based terminal column 2 + 2*1 + 1, row 1 + 1 + 5 + 1
        tmux.keys("\x1b[<0;5;8M", literal=True)
        screen = tmux.wait_for("step 3")
        assert "last: click 1 5" in screen
        tmux.keys("n")
        tmux.wait_for("step 4")
        tmux.keys("r")
        screen = tmux.wait_for("resets 1")
        assert "step 0" in screen
        tmux.keys("q")
        screen = tmux.wait_for("EXIT=0")
        assert "examples/bouncer.sexp: 0 steps since the last reset, 1 resets, seed 7" in screen
    finally:
        tmux.close()


def test_readme_play_session_is_current() -> None:
    """docs/reference.md shows a tmux capture of `llm-eval play platformer --seed 7`;
    replaying the same keys through the session must give the same screen (without colours)."""
    from llm_eval.worlds import make_world

    shown = (REPO / "docs" / "reference.md").read_text()
    mention = shown.index("llm-eval play platformer --seed 7")
    block = shown[mention:].split("```text\n", 1)[1].split("```", 1)[0].rstrip("\n").split("\n")
    session = PlaySession(make_world("platformer", seed=7), name="platformer")
    for key in ("right", "right", "up", "n", "c", "9", " ", "1", "2", "enter"):
        session.handle(Key(key))
    assert [ESCAPE.sub("", line).rstrip() for line in session.screen()] == block
