"""Suite manifests: the shipped v1 matches its files; freezing is deterministic; a hand-edited
manifest, an unknown suite and a task whose file changed are refused, naming the task and the
file; ``llm-eval run --suite v1`` runs its tasks and names the suite and its digest in the job
settings, the transcript header and the report; runs without a suite keep their job ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_eval.cli import main
from llm_eval.suites import SuiteError, SuiteMismatchError, freeze, load_suite, suite_names
from llm_eval.suites import manifest as manifest_module
from llm_eval.sweep import SpecError, Sweep, execute_job
from llm_eval.tasks import all_tasks
from llm_eval.transcripts import read_transcript, transcript_files


def test_v1_is_shipped_and_matches_every_file():
    """A task file or program changed without re-freezing fails here: run
    ``llm-eval suites freeze v1`` (docs/authoring.md)."""
    assert "v1" in suite_names()
    suite = load_suite("v1")
    assert len(suite.tasks) == len(all_tasks()) and len(suite.tasks) % 3 == 0
    stale = {t.id: [f.path for f, _ in suite.mismatches(t.id)] for t in suite.tasks}
    assert {k: v for k, v in stale.items() if v} == {}
    assert main(["suites", "check", "v1"]) == 0


def test_freeze_is_deterministic_and_round_trips(tmp_path):
    tasks = all_tasks(["warehouse"])
    a, b = freeze("mine", tasks), freeze("mine", list(reversed(tasks)))
    assert a == b and len(a.digest) == 64
    assert [t.id for t in a.tasks] == ["warehouse-mfp", "warehouse-cd", "warehouse-planning"]
    roles = [[f.role for f in t.files] for t in a.tasks]
    assert roles == [["task", "program"], ["task", "program", "modified program"],
                     ["task", "program"]]
    path = tmp_path / "mine.json"
    path.write_text(a.to_json())
    assert load_suite(str(path)) == a
    # the description is not part of the digest
    assert freeze("mine", tasks, "other words").digest == a.digest


def test_a_hand_edited_manifest_is_refused(tmp_path):
    data = json.loads(freeze("mine", all_tasks(["warehouse"])).to_json())
    data["tasks"] = data["tasks"][:2]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SuiteError, match="edited by hand"):
        load_suite(str(path))


def test_an_unknown_suite_gets_a_suggestion(capsys):
    with pytest.raises(SuiteError, match="did you mean 'v1'"):
        load_suite("v11")
    assert main(["run", "--model", "random", "--suite", "v11", "-o", "x"]) == 2
    assert "did you mean 'v1'" in capsys.readouterr().err


@pytest.fixture
def tampered(tmp_path, monkeypatch):
    """Shipped suites read from a folder where v1 records a wrong digest for
    warehouse-mfp's task file (as if the file had changed since the freeze)."""
    suite = load_suite("v1")
    tasks = []
    for task in suite.tasks:
        if task.id == "warehouse-mfp":
            files = tuple(f.model_copy(update={"sha256": "0" * 64}) if f.role == "task" else f
                          for f in task.files)
            task = task.model_copy(update={"files": files})
        tasks.append(task)
    bad = suite.model_copy(update={"tasks": tuple(tasks)})
    bad = bad.model_copy(update={"digest": bad.computed_digest()})
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "v1.json").write_text(bad.to_json())
    monkeypatch.setattr(manifest_module, "_suites_dir", lambda: folder)
    return folder


def test_a_changed_task_file_is_refused_naming_task_and_file(tampered, capsys):
    with pytest.raises(SuiteMismatchError) as info:
        load_suite("v1").verify("warehouse-mfp")
    message = str(info.value)
    assert "task warehouse-mfp" in message and "tasks/data/warehouse-mfp.json" in message
    with pytest.raises(SpecError, match="warehouse-mfp.*tasks/data/warehouse-mfp.json"):
        Sweep.from_data({"models": ["random"], "suite": "v1", "worlds": ["warehouse"]})
    # the tasks that still match run
    ok = Sweep.from_data({"models": ["random"], "suite": "v1", "worlds": ["warehouse"],
                          "families": ["planning"]})
    assert [j.settings["task"] for j in ok.expand()] == ["warehouse-planning"]
    assert main(["suites", "check", "v1"]) == 1
    assert "warehouse-mfp: task file llm_eval/tasks/data/warehouse-mfp.json" in \
        capsys.readouterr().out


def test_a_job_whose_file_changed_after_expansion_fails(tmp_path, monkeypatch):
    job = next(j for j in Sweep.from_data({"models": ["random"], "suite": "v1",
                                           "worlds": ["warehouse"],
                                           "families": ["mfp"]}).expand())
    spec = Sweep.from_data({"models": ["random"], "suite": "v1", "worlds": ["warehouse"],
                            "families": ["planning"]})
    real = load_suite("v1")

    def stale(name):
        entry = real.task("warehouse-mfp")
        files = tuple(f.model_copy(update={"sha256": "1" * 64}) for f in entry.files)
        tasks = tuple(t.model_copy(update={"files": files}) if t.id == entry.id else t
                      for t in real.tasks)
        return real.model_copy(update={"tasks": tasks})

    monkeypatch.setattr("llm_eval.suites.load_suite", stale)
    outcome = execute_job(job, spec, tmp_path / "t.jsonl")
    assert outcome.status == "failed"
    assert "task warehouse-mfp" in outcome.error and "warehouse-mfp.json" in outcome.error


def test_run_suite_names_suite_in_settings_header_and_report(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["run", "--model", "random", "--model", "oracle", "--suite", "v1",
                 "--worlds", "warehouse", "--families", "mfp", "planning", "-o", str(out),
                 "--no-progress", "--processes", "0"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "4 jobs (4 done)" in printed
    suite = load_suite("v1")
    transcripts = transcript_files(out / "transcripts")
    assert len(transcripts) == 4
    scores = {}
    for path in transcripts:
        transcript = read_transcript(path)
        header = transcript.header
        assert header.settings["suite"] == "v1"
        assert header.suite == {"name": "v1", "digest": suite.digest}
        scores[header.settings["model"], header.task_id] = transcript.of_type("score")[0].score
    assert scores["oracle", "warehouse-planning"] == 1.0
    assert scores["oracle", "warehouse-mfp"] == 1.0
    assert main(["report", str(out), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert f'data-digests="{suite.digest}"' in page
    assert f"Suite v1 (sha256 {suite.digest[:12]})" in page
    # the jobs of a suite replay (the replay's one-job sweep names the suite too)
    assert main(["replay", str(out)]) == 0
    assert "reproduced 4/4" in capsys.readouterr().out


def test_jobs_without_a_suite_keep_their_ids():
    """The README's job ids (random warehouse-mfp, oracle easel-planning) are unchanged."""
    jobs = Sweep.from_data({"models": ["random", "oracle"],
                            "worlds": ["warehouse", "easel"]}).expand()
    ids = {(j.model, j.settings["task"]): j.id for j in jobs}
    assert ids["random", "warehouse-mfp"] == "3f231d954d65ff84"
    assert ids["oracle", "easel-planning"] == "4151381106a2e9e8"
    assert all("suite" not in j.settings for j in jobs)
    with_suite = Sweep.from_data({"models": ["random"], "suite": "v1",
                                  "worlds": ["warehouse"], "families": ["mfp"]}).expand()
    assert with_suite[0].settings["suite"] == "v1"
    assert with_suite[0].id != ids["random", "warehouse-mfp"]


def test_suite_and_tasks_are_exclusive_and_a_path_is_not_a_name(tmp_path):
    import llm_eval.tasks

    task_file = Path(llm_eval.tasks.__file__).parent / "data" / "warehouse-mfp.json"
    with pytest.raises(SpecError, match="suite or tasks"):
        Sweep.from_data({"models": ["random"], "suite": "v1", "tasks": [str(task_file)]})
    with pytest.raises(SpecError, match="not by a path"):
        Sweep.from_data({"models": ["random"], "suite": "suites/v1.json"})
    with pytest.raises(SpecError, match="unknown world 'nowhere' in suite v1"):
        Sweep.from_data({"models": ["random"], "suite": "v1", "worlds": ["nowhere"]})


def test_a_non_editable_build_ships_the_manifest_and_its_files_match(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    source = tmp_path / "src"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("llm_eval", "adapters", "prompts", "transcripts"):
        shutil.copytree(repo / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(repo / name, source / name)
    build = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
         "--build-lib", str(tmp_path / "lib")],
        cwd=source, capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path / "lib")
    probe = subprocess.run(
        [sys.executable, "-c",
         "import llm_eval.suites.manifest as m\n"
         "print(m.__file__)\n"
         "for name in ('v1', 'v2'):\n"
         "    s = m.load_suite(name)\n"
         "    print(len(s.tasks), sum(bool(s.mismatches(t.id)) for t in s.tasks))\n"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    location, *counts = probe.stdout.split("\n")[:3]
    assert location.startswith(str(tmp_path / "lib"))
    # suite v2's own task files (tasks/data/v2/) are package data too
    assert counts == [f"{len(load_suite(name).tasks)} 0" for name in ("v1", "v2")]


def test_the_suites_commands(tmp_path, capsys):
    suite = load_suite("v1")
    assert main(["suites", "list"]) == 0
    assert f"v1  {len(suite.tasks)} tasks" in capsys.readouterr().out
    assert main(["suites", "show", "v1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["digest"] == suite.digest
    out = tmp_path / "mine.json"
    assert main(["suites", "freeze", "mine", "--worlds", "warehouse", "easel",
                 "--description", "two worlds", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    mine = load_suite(str(out))
    assert mine.worlds == ["easel", "warehouse"] and mine.description == "two worlds"
    assert f"sha256 {mine.digest}" in printed
    assert main(["suites", "freeze", "mine", "--worlds", "nowhere", "-o", str(out)]) == 2
    assert "unknown world(s) nowhere" in capsys.readouterr().err
