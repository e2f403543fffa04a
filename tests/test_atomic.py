"""Files written whole are written atomically: a reader sees the old file or the new one,
never part of one, and a write that fails leaves the old file and no temporary file."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from llm_eval.atomic import atomic_open, write_atomic


def test_a_write_replaces_the_file_and_leaves_nothing_else(tmp_path):
    target = tmp_path / "report.html"
    write_atomic(target, "<p>old</p>")
    assert write_atomic(target, "<p>new</p>") == target
    assert target.read_text() == "<p>new</p>"
    assert os.listdir(tmp_path) == ["report.html"]
    write_atomic(target, b"\x89PNG")
    assert target.read_bytes() == b"\x89PNG"


def test_a_write_that_fails_keeps_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "calls.jsonl"
    write_atomic(target, "old\n")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as out:
            out.write("half of a new ")
            raise RuntimeError("the disk is full")
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["calls.jsonl"]


def test_a_reader_never_sees_a_partial_file(tmp_path):
    target = tmp_path / "spec.json"
    versions = [("x" * 200_000 + str(n)) for n in range(20)]
    write_atomic(target, versions[0])
    seen: set[str] = set()
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            seen.add(target.read_text())

    reader = threading.Thread(target=read)
    reader.start()
    for text in versions:
        write_atomic(target, text)
    done.set()
    reader.join()
    assert seen <= set(versions)


def test_permissions_are_kept_or_the_usual_ones(tmp_path):
    fresh = write_atomic(tmp_path / "new.txt", "a")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    kept = tmp_path / "kept.txt"
    kept.write_text("a")
    kept.chmod(0o640)
    write_atomic(kept, "b")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640


def test_a_device_is_written_through_not_replaced(tmp_path):
    write_atomic(os.devnull, "discarded")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_missing_directory_is_an_error_naming_the_file(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        write_atomic(tmp_path / "nowhere" / "report.html", "x")
    assert info.value.filename == str(tmp_path / "nowhere" / "report.html")


def test_a_private_file_is_owner_only_from_its_first_byte(tmp_path, monkeypatch):
    """Secrets (a study's tokens) are never readable by others, not even the temporary file
    while it is written."""
    import os
    import stat

    from llm_eval import atomic

    modes = []
    real = os.fsync

    def spy(fd):
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", spy)
    old = os.umask(0o022)
    try:
        path = atomic.write_atomic(tmp_path / "secret.json", "{}", private=True)
        atomic.write_atomic(tmp_path / "secret.json", "{} ", private=True)   # replaced
        atomic.write_atomic(tmp_path / "plain.txt", "x")
    finally:
        os.umask(old)
    assert modes == [0o600, 0o600, 0o644]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
