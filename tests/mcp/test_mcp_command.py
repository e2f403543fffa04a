"""``llm-eval mcp`` refuses what it cannot serve before it binds or writes anything: a
non-loopback address, an unknown task or suite, a bad seed, a run directory another writer
holds."""

from __future__ import annotations

import threading

import pytest

from llm_eval.cli import main
from llm_eval.runlock import hold_run_dir


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com"])
def test_a_non_loopback_bind_is_refused(tmp_path, capsys, host):
    run_dir = tmp_path / "run"
    assert main(["mcp", "--task", "gravity-planning", "--transport", "http", "--host", host,
                 "--port", "0", "--run-dir", str(run_dir)]) == 2
    assert f"--host {host}: not a loopback address" in capsys.readouterr().err
    assert not run_dir.exists()   # refused before anything was made


@pytest.mark.parametrize("args, message", [
    (["--task", "gravty-planning"], "did you mean 'gravity'?"),
    (["--task", "gravity"], "expected WORLD-FAMILY"),
    (["--task", "gravity-chess"], "expected WORLD-FAMILY"),
    (["--suite", "v9"], "unknown suite 'v9'"),
])
def test_what_cannot_be_served_is_a_usage_error(tmp_path, capsys, args, message):
    run_dir = tmp_path / "run"
    assert main(["mcp", *args, "--run-dir", str(run_dir)]) == 2
    assert message in capsys.readouterr().err
    assert not run_dir.exists()


def test_a_run_directory_another_writer_holds_is_refused(tmp_path, capsys):
    run_dir = tmp_path / "run"
    held, release = threading.Event(), threading.Event()

    def writer():
        with hold_run_dir(run_dir):
            held.set()
            release.wait(30)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert held.wait(10)
        assert main(["mcp", "--task", "gravity-mfp", "--run-dir", str(run_dir)]) == 2
    finally:
        release.set()
        thread.join()
    assert "is writing to this run directory" in capsys.readouterr().err
