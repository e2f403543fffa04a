"""Importing the published AutumnBench layout (issue 16): a hand-written fixture in that
layout (tests/fixtures/autumnbench), bad input as typed errors naming file and field, and the
imported tasks played by the oracle and the random agent under both protocols."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from llm_eval.agents import make_agent
from llm_eval.cli import main
from llm_eval.tasks.autumnbench_import import (
    TaskImportError,
    import_autumnbench,
    validate_imported,
)
from llm_eval.tasks.store import load_tasks
from llm_eval.transcripts import transcript_files
from llm_eval.worldtest import run_episode
from llm_eval.worldtest.seeding import seeded

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "autumnbench"


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tasks")
    import_autumnbench(FIXTURE, out)
    return out


def test_one_task_per_family_with_the_sources_numbers_and_digests(imported):
    tasks = {t.family: t for t in load_tasks(imported)}
    assert sorted(tasks) == ["cd", "mfp", "planning"]
    mfp = tasks["mfp"]
    assert mfp.seed is None and mfp.program == "programs/drizzle.sexp"
    assert len(mfp.public.options) == 4 and mfp.hidden.answer == 2      # kept, not forced to 6
    assert (mfp.public.mask.x, mfp.public.mask.y, mfp.public.mask.width,
            mfp.public.mask.height) == (2, 1, 2, 2)
    assert mfp.public.masked_from == 9 and mfp.public.actions[2] == "click 3 2"
    assert tasks["cd"].hidden.condition == "any (--> d (.. d hot)) drops"
    assert tasks["cd"].hidden.trigger == tasks["cd"].hidden.condition
    planning = tasks["planning"]
    assert planning.public.horizon is None and planning.hidden.reference_length == 3
    assert planning.public.goal[5][0] == "white" and planning.public.mask[2][4]
    files = tasks["cd"].source.files
    assert set(files) >= {"programs/drizzle_change_detection_wrong_program.sexp",
                          "answers/drizzle_change_detection.json", "color_dict.yaml"}
    import hashlib
    wrong = FIXTURE / "programs/drizzle_change_detection_wrong_program.sexp"
    assert files["programs/drizzle_change_detection_wrong_program.sexp"] == \
        hashlib.sha256(wrong.read_bytes()).hexdigest()
    assert (imported / "programs" / "drizzle.sexp").is_file()     # self-contained


@pytest.mark.parametrize("protocol,seed", [("worldtest", 3), ("autumnbench", 0)])
@pytest.mark.parametrize("family", ["mfp", "cd", "planning"])
def test_oracle_solves_and_random_does_not_under_both_protocols(imported, family, protocol,
                                                                 seed):
    task = next(t for t in load_tasks(imported) if t.family == family)
    task, warning = seeded(task, seed, protocol)
    assert (warning is not None) == (seed == 0)
    oracle = run_episode(task, make_agent("oracle", task), protocol=protocol)
    assert oracle.score == 1.0
    random = run_episode(task, make_agent("random", task, seed=5), protocol=protocol)
    assert random.score < 1.0


def test_validation_reports_every_check(imported):
    for task in load_tasks(imported):
        report = validate_imported(task, seed=1)
        assert report.passed, report.to_dict()


def test_a_condition_that_never_holds_is_reported_not_fatal(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(FIXTURE, data)
    (data / "answers/drizzle_change_detection.json").write_text(
        json.dumps({"condition": "== 1 2"}))
    import_autumnbench(data, tmp_path / "out")
    cd = next(t for t in load_tasks(tmp_path / "out") if t.family == "cd")
    report = validate_imported(cd, seed=1)
    assert not report.check("condition_reachable").passed


@pytest.mark.parametrize("edit,message", [
    (lambda d: (d / "answers/drizzle_mfp.json").unlink(), "answers/drizzle_mfp.json: cannot read"),
    (lambda d: (d / "answers/drizzle_mfp.json").write_text('{"correct_idx": "2"}'),
     "answers/drizzle_mfp.json: correct_idx: expected int"),
    (lambda d: _edit(d, "prompts/drizzle_planning.json", lambda j: j["goal"][3].append(1)),
     "prompts/drizzle_planning.json: goal[3]: 7 cells, row 0 has 6"),
    (lambda d: _edit(d, "prompts/drizzle_planning.json", lambda j: j["goal"][3].__setitem__(2, 99)),
     "prompts/drizzle_planning.json: goal[3][2]: colour index 99 is not in color_dict.yaml"),
    (lambda d: _edit(d, "prompts/drizzle_mfp.json", lambda j: j["observations"].pop(0) and
                     [o.__setitem__("masked_grid", o["masked_grid"][:5]) for o in j["observations"]]),
     "not square"),
    (lambda d: (d / "programs/drizzle.sexp").write_text("(program (= GRID_SIZE"),
     "programs/drizzle.sexp: the program does not load"),
])
def test_bad_input_is_a_typed_error_naming_file_and_field(tmp_path, edit, message):
    data = tmp_path / "data"
    shutil.copytree(FIXTURE, data)
    edit(data)
    with pytest.raises(TaskImportError, match=message.replace("[", r"\[").replace("]", r"\]")):
        import_autumnbench(data, tmp_path / "out")
    assert not (tmp_path / "out").exists()          # nothing written before all is read


def _edit(root: Path, relative: str, change) -> None:
    path = root / relative
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_cli_import_prints_the_validation_table(tmp_path, capsys):
    assert main(["tasks", "import", "autumnbench", str(FIXTURE), "--out",
                 str(tmp_path / "t")]) == 0
    out = capsys.readouterr().out
    assert "drizzle-planning (planning): PASS" in out
    assert "goal_reachable" in out and "imported 3 tasks" in out


def test_cli_episode_and_run_on_imported_tasks(imported, tmp_path, capsys):
    script = tmp_path / "cd.script"
    script.write_text("go-to-test\nclick 0 5\nclick 5 5\nnoop\nI found the change!\n"
                      "Submit choice\n")
    assert main(["episode", str(imported / "drizzle-cd.json"), "--protocol", "autumnbench",
                 "--agent", f"script/{script}", "--seed", "0"]) == 0
    captured = capsys.readouterr()
    assert "score 1.000 (raw +1.000)" in captured.out
    assert "seed 0 is 0 mod 2**32" in captured.err
    assert main(["episode", "drizzle", "--tasks", str(imported), "--family", "cd",
                 "--agent", "oracle", "--seed", "0"]) == 2     # worldtest refuses seed 0
    assert "refused" in capsys.readouterr().err
    run = tmp_path / "run"
    assert main(["run", "--model", "oracle", "--tasks", str(imported), "--protocol",
                 "autumnbench", "--seeds", "2", "-o", str(run), "--no-progress"]) == 0
    assert main(["replay", str(run)]) == 0
    assert "reproduced 3/3" in capsys.readouterr().out
    first = transcript_files(run / "transcripts")[0]
    header = json.loads(gzip.decompress(first.read_bytes()).splitlines()[0])
    assert header["protocol"] == "autumnbench" and header["settings"]["protocol"] == "autumnbench"
