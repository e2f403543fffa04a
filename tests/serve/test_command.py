"""``llm-eval serve``: refused before binding when its input is wrong or its run directory
is another writer's (exit 2, one line naming the cause)."""

from __future__ import annotations

import threading

from llm_eval.cli import main
from llm_eval.runlock import hold_run_dir


def test_a_bad_study_spec_is_refused_naming_the_file(tmp_path, capsys):
    spec = tmp_path / "study.yaml"
    spec.write_text("name: s\nparticipants: 2\ntasks_per_participant: 1\n"
                    "tasks: [nowhere/mfp]\nconsent: ok\n", encoding="utf-8")
    assert main(["serve", str(tmp_path / "run"), "--study", str(spec)]) == 2
    err = capsys.readouterr().err
    assert str(spec) in err and "unknown task 'nowhere/mfp'" in err


def test_a_run_directory_another_writer_holds_is_refused(tmp_path, capsys):
    run_dir = tmp_path / "run"
    held, release = threading.Event(), threading.Event()

    def hold():
        with hold_run_dir(run_dir):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)
    try:
        assert main(["serve", str(run_dir), "--port", "1"]) == 2
    finally:
        release.set()
        holder.join(30)
    assert "writing to this run directory" in capsys.readouterr().err


def test_a_non_editable_build_ships_the_page_files(tmp_path):
    """The page's script and style are package data: a build without the source tree has
    them where the app serves them from."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    build = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
         "--build-lib", str(tmp_path / "lib")], cwd=repo, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    static = tmp_path / "lib" / "llm_eval" / "serve" / "static"
    assert {p.name for p in static.iterdir()} >= {"play.js", "serve.css"}
