"""``tasks validate`` keeps each report and reuses it while the task's inputs are unchanged
(llm_eval/tasks/report_cache.py): the second run prints what the first did without validating
anything; an edit to one world's program, the effort, a task file or llm_eval's code makes a
new key; a damaged or foreign entry is an error naming its file; ``--no-cache`` and
``LLM_EVAL_REPORT_CACHE=off`` are obeyed; a report that cannot be kept is said."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from llm_eval.cli import main
from llm_eval.tasks import report_cache, validate
from llm_eval.tasks.store import all_tasks, load_task
from llm_eval.tasks.validate import FULL, QUICK, Check, TaskReport


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "reports"
    monkeypatch.setenv(report_cache.ENV, str(folder))
    return folder


@pytest.fixture
def counted(monkeypatch):
    """validate_task replaced by a quick one that records which tasks it validated."""
    seen: list[str] = []

    def fake(task, effort=FULL):
        seen.append(task.id)
        return TaskReport(task.id, task.world, task.family,
                          (Check("seed", True, {"b": 2, "a": [1, 2]}),))

    monkeypatch.setattr(validate, "validate_task", fake)
    return seen


def _validate(capsys, *args) -> tuple[int, str, str]:
    code = main(["tasks", "validate", "--processes", "1", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_second_run_reuses_every_report_and_prints_the_same(cache, capsys, monkeypatch):
    code, table, err = _validate(capsys, "--quick", "easel")
    assert code == 0 and "0 of 3 reports reused" in err and str(cache) in err
    assert len(list(cache.glob("*.json"))) == 3
    _, as_json, _ = _validate(capsys, "--quick", "--json", "easel")

    def refuse(task, effort=FULL):
        raise AssertionError(f"{task.id} validated again")

    monkeypatch.setattr(validate, "validate_task", refuse)
    code, again, err = _validate(capsys, "--quick", "easel")
    assert code == 0 and again == table and "3 of 3 reports reused" in err
    _, json_again, _ = _validate(capsys, "--quick", "--json", "easel")
    assert json_again == as_json and len(json.loads(as_json)) == 3


def test_each_input_of_a_report_changes_its_key(monkeypatch, tmp_path):
    task = load_task("gravity", "cd")
    key = report_cache.task_key(task, QUICK)
    assert report_cache.task_key(load_task("gravity", "cd"), QUICK) == key
    changed = {
        "the task file": report_cache.task_key(task.model_copy(update={"seed": task.seed + 1}),
                                               QUICK),
        "the effort": report_cache.task_key(task, dataclasses.replace(QUICK, fuzz_runs=7)),
        "another task": report_cache.task_key(load_task("gravity", "mfp"), QUICK),
    }
    spec = report_cache.world_spec("gravity")
    with monkeypatch.context() as m:
        m.setattr(type(spec), "program_text", lambda self: "(program)")
        changed["the world's program"] = report_cache.task_key(task, QUICK)
    with monkeypatch.context() as m:
        other = tmp_path / "gravity.yaml"
        other.write_text("size: 99\n")
        m.setattr(report_cache, "world_spec",
                  lambda name: dataclasses.replace(spec, metadata_path=str(other)))
        changed["the world's metadata"] = report_cache.task_key(task, QUICK)
    with monkeypatch.context() as m:
        m.setattr("llm_eval.tasks.trajectory.changed_program_text", lambda program: "(program)")
        changed["the modified program"] = report_cache.task_key(task, QUICK)
    with monkeypatch.context() as m:
        m.setattr(report_cache, "code_digest", lambda: "another checkout")
        changed["llm_eval's code"] = report_cache.task_key(task, QUICK)
    assert report_cache.task_key(task, QUICK) == key
    assert {name: k for name, k in changed.items() if k == key} == {}
    assert len(set(changed.values())) == len(changed)


def test_the_code_digest_covers_the_checks_and_the_interpreter():
    from pathlib import Path

    root = Path(report_cache.__file__).resolve().parents[1]
    digest = report_cache.code_digest()
    assert len(digest) == 64
    # what the digest reads: every Python and Autumn source of the package
    assert (root / "tasks" / "validate.py").is_file() and (root / "autumn" / "stdlib.sexp").is_file()
    report_cache.code_digest.cache_clear()
    assert report_cache.code_digest() == digest


def test_an_edited_world_alone_is_validated_again(cache, counted, capsys, monkeypatch):
    assert _validate(capsys, "gravity", "easel")[0] == 0
    assert sorted(counted) == sorted(t.id for t in all_tasks(["gravity", "easel"]))
    counted.clear()
    spec = report_cache.world_spec("gravity")
    edited = spec.program_text() + "\n; an edit\n"
    original = type(spec).program_text
    monkeypatch.setattr(type(spec), "program_text",
                        lambda self: edited if self.name == "gravity" else original(self))
    code, _, err = _validate(capsys, "gravity", "easel")
    assert code == 0 and sorted(counted) == ["gravity-cd", "gravity-mfp", "gravity-planning"]
    assert "3 of 6 reports reused" in err


def test_a_damaged_or_foreign_entry_is_an_error_naming_its_file(cache, counted, capsys):
    assert _validate(capsys, "easel")[0] == 0
    tasks = all_tasks(["easel"])
    keys = [report_cache.task_key(t, FULL) for t in tasks]
    damaged = cache / f"{keys[0]}.json"
    damaged.write_text('{"report": {"task": "easel-mfp"')
    code, _, err = _validate(capsys, "easel")
    assert code == 1 and str(damaged) in err and "not a validation report" in err
    shutil.copy(cache / f"{keys[1]}.json", damaged)   # easel-cd's report under easel-mfp's key
    code, _, err = _validate(capsys, "easel")
    assert code == 1 and str(damaged) in err and "holds the report of 'easel-cd'" in err
    counted.clear()
    assert _validate(capsys, "--no-cache", "easel")[0] == 0   # validates, rewrites the entry
    assert counted == [t.id for t in tasks]
    entry = json.loads(damaged.read_text())
    assert entry["key"] == keys[0] and entry["report"]["task"] == "easel-mfp"


def test_no_cache_validates_again_and_off_keeps_nothing(cache, counted, capsys, monkeypatch):
    assert _validate(capsys, "easel")[0] == 0
    counted.clear()
    code, _, err = _validate(capsys, "--no-cache", "easel")
    assert code == 0 and len(counted) == 3 and "0 of 3 reports reused" in err
    monkeypatch.setenv(report_cache.ENV, "off")
    shutil.rmtree(cache)
    counted.clear()
    code, _, err = _validate(capsys, "easel")
    assert code == 0 and len(counted) == 3 and not cache.exists() and "reused" not in err


def test_a_report_that_cannot_be_kept_is_said_and_still_printed(tmp_path, counted, capsys,
                                                                monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv(report_cache.ENV, str(blocker / "reports"))
    code, out, err = _validate(capsys, "easel")
    assert code == 0 and "easel-cd (cd): PASS" in out and "3 tasks: 3 passed" in out
    assert err.count("report not kept in") == 3 and "easel-mfp's report" in err


def test_a_run_stopped_part_way_keeps_the_reports_it_gave(cache, counted):
    tasks = all_tasks(["easel"])
    run = report_cache.validate_kept(tasks, FULL, 1, folder=cache)
    assert [next(run)[0].task, next(run)[0].task] == [tasks[0].id, tasks[1].id]
    run.close()   # a Ctrl-C in the middle
    assert len(list(cache.glob("*.json"))) == 2
    counted.clear()
    again = list(report_cache.validate_kept(tasks, FULL, 1, folder=cache))
    assert counted == [tasks[2].id] and [reused for _, reused, _ in again] == [True, True, False]
