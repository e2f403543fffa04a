"""The fused tier's code kept on disk (llm_eval/autumn/codecache.py): a new process reads back
what an earlier one compiled instead of compiling it, runs the same frames, and survives a
damaged entry, a folder it cannot write, and the cache turned off."""

from __future__ import annotations

import builtins
import os
import subprocess
import sys

import pytest

from llm_eval.autumn import codecache, fuse
from llm_eval.worlds import make_world

WORLD = "warehouse"
ACTIONS = ["left", "up", "click 3 3", "right", "noop", "down", "down", "left"]


def _frames() -> list:
    world = make_world(WORLD, seed=5)
    frames = [world.reset()[0].grid]
    frames += [world.step(a)[0].grid for a in ACTIONS]
    return frames


def _fresh(monkeypatch, folder) -> list[str]:
    """As a new process: nothing compiled in memory, the cache in ``folder``; returns the list
    that records each real ``compile()`` of generated code."""
    monkeypatch.setenv(codecache.ENV, str(folder))
    monkeypatch.setattr(fuse, "_FUSED", {})
    monkeypatch.setattr(fuse, "_CODE_CACHE", {})
    monkeypatch.setattr(codecache, "_broken_dirs", set())
    compiled: list[str] = []
    real = builtins.compile

    def counting(source, filename, mode, *args, **kwargs):
        if filename == "<autumn-fused>":
            compiled.append(source)
        return real(source, filename, mode, *args, **kwargs)

    monkeypatch.setattr(codecache, "compile", counting, raising=False)
    return compiled


def _entries(folder) -> list:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_a_new_process_reads_the_code_back_and_plays_the_same_frames(monkeypatch, tmp_path):
    compiled = _fresh(monkeypatch, tmp_path)
    first = _frames()
    assert compiled and len(_entries(tmp_path)) == len(compiled)
    compiled = _fresh(monkeypatch, tmp_path)
    assert _frames() == first
    assert compiled == []                       # every function read back, none compiled
    monkeypatch.setenv(codecache.ENV, "off")    # and the frames are the uncached ones
    monkeypatch.setattr(fuse, "_FUSED", {})
    monkeypatch.setattr(fuse, "_CODE_CACHE", {})
    assert _frames() == first


def test_a_damaged_entry_is_compiled_again_and_rewritten(monkeypatch, tmp_path):
    _fresh(monkeypatch, tmp_path)
    first = _frames()
    entries = _entries(tmp_path)
    entries[0].write_bytes(b"\x00not marshal")
    entries[1].write_bytes(entries[1].read_bytes()[:10])      # cut short
    compiled = _fresh(monkeypatch, tmp_path)
    assert _frames() == first
    assert len(compiled) == 2
    assert all(codecache._read(p) is not None for p in entries)     # rewritten whole


def test_off_writes_nothing_and_a_folder_it_cannot_write_only_costs_the_compile(
        monkeypatch, tmp_path):
    compiled = _fresh(monkeypatch, tmp_path)
    monkeypatch.setenv(codecache.ENV, "off")
    first = _frames()
    assert compiled and _entries(tmp_path) == []
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    compiled = _fresh(monkeypatch, blocked)
    assert _frames() == first and compiled
    assert codecache._broken_dirs == {blocked}       # tried once, then left alone


def test_processes_share_the_folder(tmp_path):
    script = ("from llm_eval.worlds import make_world\n"
              "w = make_world('sandbox', seed=2); w.reset()\n"
              "print([w.step('noop')[0].grid for _ in range(5)])\n")
    env = {**os.environ, codecache.ENV: str(tmp_path)}

    def run() -> str:
        return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, check=True, timeout=120).stdout

    first = run()
    written = {p: p.stat().st_ino for p in _entries(tmp_path)}
    assert written and run() == first
    # the second process read every entry and replaced none
    assert {p: p.stat().st_ino for p in _entries(tmp_path)} == written
    assert not [p for p in tmp_path.rglob(".tmp-*")]    # no half-written entry left


@pytest.mark.parametrize("value", ["", "off"])
def test_the_folder_follows_the_environment(monkeypatch, tmp_path, value):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(codecache.ENV, value)
    assert codecache.cache_dir() == (None if value == "off" else tmp_path / "llm_eval" / "code")
