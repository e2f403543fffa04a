"""``tasks import ... --validate later``: the tasks are written, listed as not validated
(DIR/UNVALIDATED) until ``tasks validate --tasks DIR`` runs, and ``run`` and ``episode`` warn
on them meanwhile (llm_eval/tasks/unvalidated.py)."""

from __future__ import annotations

from pathlib import Path

from llm_eval.cli import main
from llm_eval.tasks import unvalidated

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "autumnbench"
IDS = ["drizzle-cd", "drizzle-mfp", "drizzle-planning"]


def _import_later(out: Path, capsys) -> str:
    assert main(["tasks", "import", "autumnbench", str(FIXTURE), "--out", str(out),
                 "--validate", "later"]) == 0
    return capsys.readouterr().out


def test_import_later_writes_the_tasks_unvalidated_and_validate_clears_them(tmp_path, capsys):
    out = tmp_path / "t"
    printed = _import_later(out, capsys)
    assert "not validated" in printed and "goal_reachable" not in printed   # no checks ran
    assert sorted(p.stem for p in out.glob("*.json")) == IDS
    assert unvalidated.pending(out) == IDS

    assert main(["tasks", "validate", "--tasks", str(out)]) == 0
    table = capsys.readouterr().out
    assert "drizzle-planning (planning): PASS" in table and "goal_reachable" in table
    assert "3 tasks: 3 passed, 0 failed" in table
    assert unvalidated.pending(out) == [] and not (out / unvalidated.MARKER).exists()


def test_episode_and_run_warn_on_an_unvalidated_task(tmp_path, capsys):
    out = tmp_path / "t"
    _import_later(out, capsys)
    script = tmp_path / "mfp.script"
    script.write_text("go-to-test\nchoose 2\n")
    assert main(["episode", str(out / "drizzle-mfp.json"), "--agent", f"script/{script}",
                 "--protocol", "worldtest"]) == 0
    err = capsys.readouterr().err
    assert "drizzle-mfp" in err and "not validated" in err
    assert f"llm-eval tasks validate --tasks {out}" in err

    assert main(["run", "--model", "oracle", "--tasks", str(out), "--seeds", "1",
                 "--families", "mfp", "-o", str(tmp_path / "run"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "3 task(s) imported with --validate later and not validated" in err

    unvalidated.unmark(out, ["drizzle-mfp"])        # as tasks validate does
    assert main(["episode", str(out / "drizzle-mfp.json"), "--agent", f"script/{script}",
                 "--protocol", "worldtest"]) == 0
    assert "not validated" not in capsys.readouterr().err


def test_the_list_adds_and_removes_ids(tmp_path):
    assert unvalidated.pending(tmp_path) == []
    assert unvalidated.pending(tmp_path / "missing") == []
    unvalidated.mark(tmp_path, ["b", "a"])
    unvalidated.mark(tmp_path, ["a", "c"])
    assert unvalidated.pending(tmp_path) == ["a", "b", "c"]
    assert unvalidated.warning_for_task(type("T", (), {"id": "z", "root": str(tmp_path)})) \
        is None
    unvalidated.unmark(tmp_path, ["a", "b", "c"])
    assert not (tmp_path / unvalidated.MARKER).exists()
