"""The published harness's settings as the ``autumnbench`` profile's options (issue 36):
``stack_frames``, ``skip_frames``, ``harness_texts`` and image mode (a model's rendering
``png``) in the sweep spec, job settings and ids, the command lines, the transcript header, and
a model job in image mode with the harness's texts that replays exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import autumnbench_fixture as F
import pytest

from llm_eval.adapters import Response
from llm_eval.adapters.base import Adapter
from llm_eval.replay import replay_transcript
from llm_eval.sweep.job import execute_job, job_autumnbench_settings
from llm_eval.sweep.spec import SpecError, Sweep
from llm_eval.transcripts import read_transcript
from llm_eval.worldtest.autumnbench.settings import settings_of
from llm_eval.worldtest.autumnbench.texts import HarnessTextsError

CHECKOUT = Path(__file__).resolve().parents[1] / "fixtures" / "autumnbench-harness"
MODEL = "openai-chat/gpt-4.1-mini"
OPTIONS = {"stack_frames", "skip_frames", "harness_texts", "harness_texts_dir"}


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("autumnbench-options")
    F.import_tasks(out)
    return out


def sweep(task_dir, **fields) -> Sweep:
    data = {"models": ["random", MODEL], "tasks": [str(task_dir)], "families": ["planning"],
            "protocol": "autumnbench"} | fields
    return Sweep.from_data(data, "test")


def test_at_the_harness_defaults_jobs_carry_no_option_and_keep_their_ids(task_dir):
    plain = sweep(task_dir).expand()
    explicit = sweep(task_dir, stack_frames=True, skip_frames=False).expand()
    assert [j.id for j in plain] == [j.id for j in explicit]
    assert all(not OPTIONS & set(j.settings) for j in plain)


def test_each_option_changes_the_settings_and_the_id(task_dir):
    base = {j.model: j for j in sweep(task_dir).expand()}
    no_stack = {j.model: j for j in sweep(task_dir, stack_frames=False).expand()}
    skip = {j.model: j for j in sweep(task_dir, skip_frames=True).expand()}
    assert no_stack["random"].settings["stack_frames"] is False
    assert skip[MODEL].settings["skip_frames"] is True
    assert len({base["random"].id, no_stack["random"].id, skip["random"].id}) == 3
    autumnbench = settings_of(no_stack["random"].settings, model_plays=False)
    assert autumnbench.stack_frames is False and autumnbench.render_mode == "text"


def test_the_texts_are_in_the_settings_their_folder_out_of_the_id(task_dir, tmp_path):
    jobs = sweep(task_dir, harness_texts=str(CHECKOUT)).expand()
    (job,) = [j for j in jobs if j.model == "random"]
    assert job.settings["harness_texts"]["texts"]["system"]["where"] == \
        "SYSTEM_PROMPT_WITH_HINT"
    moved = tmp_path / "elsewhere"
    shutil.copytree(CHECKOUT, moved)
    (again,) = [j for j in sweep(task_dir, harness_texts=str(moved)).expand()
                if j.model == "random"]
    assert again.id == job.id and again.settings["harness_texts_dir"] != \
        job.settings["harness_texts_dir"]
    # a checkout whose texts changed since is refused when the job runs
    concrete = Path(again.settings["harness_texts_dir"]) / "concrete_envs.py"
    concrete.write_text(concrete.read_text().replace("PLACEHOLDER cd intro", "CHANGED cd"))
    with pytest.raises(HarnessTextsError, match="not the ones this job recorded"):
        settings_of(again.settings, model_plays=False)


@pytest.mark.parametrize(("fields", "message"), [
    ({"protocol": "worldtest", "stack_frames": False}, "stack_frames: the published harness"),
    ({"protocol": "worldtest", "skip_frames": True}, "skip_frames"),
    ({"harness_texts": "/nonexistent/harness"}, "harness_texts.*not a directory"),
    ({"renderings": ["compact+png"]}, "not both"),
])
def test_bad_options_are_spec_errors_naming_the_field(task_dir, fields, message):
    with pytest.raises(SpecError, match=message):
        sweep(task_dir, **fields)


def test_a_models_png_rendering_is_image_mode_a_local_agent_plays_text(task_dir):
    jobs = {j.model: j for j in sweep(task_dir, renderings=["png"]).expand()}
    assert settings_of(jobs[MODEL].settings, model_plays=True).render_mode == "image"
    assert settings_of(jobs["random"].settings, model_plays=False).render_mode == "text"
    worldtest = {j.model: j for j in sweep(task_dir, protocol="worldtest").expand()}
    # the worldtest profile takes none
    assert job_autumnbench_settings(worldtest["random"], agent=None) is None


class Replies(Adapter):
    """A stand-in model: the next reply of a list for every request."""

    provider = "openai-chat"

    def __init__(self, replies) -> None:
        super().__init__("gpt-4.1-mini")
        self.replies = list(replies)
        self.requests = []

    async def complete(self, request):
        self.requests.append(request)
        return Response(provider=self.provider, model_requested=self.model, model=self.model,
                        text=f"<action>{self.replies.pop(0)}</action>", stop_reason="end_turn")


def test_a_model_job_in_image_mode_with_the_harness_texts_records_them_and_replays(
        task_dir, tmp_path):
    spec = Sweep.from_data({"models": [MODEL], "tasks": [str(task_dir)],
                            "families": ["planning"], "protocol": "autumnbench",
                            "renderings": ["png"], "harness_texts": str(CHECKOUT),
                            "skip_frames": True,
                            "budgets": {"interaction_steps": [3]}}, "test")
    (job,) = spec.expand()
    adapter = Replies(["noop", "go-to-test", *F.PLANNING_WINNING])
    path = tmp_path / "job.jsonl"
    outcome = execute_job(job, spec, path, adapter=adapter)
    assert outcome.status == "done" and outcome.raw_reward == 1.0, outcome.error
    header = read_transcript(path).header
    assert header.settings["harness_texts_dir"] == str((CHECKOUT / "python_examples" /
                                                        "autumnbench").resolve())
    assert set(header.settings["harness_texts"]["files"]) == {"prompts.py", "concrete_envs.py"}
    assert header.settings["skip_frames"] is True and header.settings["rendering"] == "png"
    first = adapter.requests[0]
    assert first.messages[0].parts[0].text.startswith("PLACEHOLDER system prompt {with braces}")
    # the line, the image, then the instructions, as three parts (A7)
    line, image, instructions = first.messages[-1].parts
    assert line.text == "The current grid is as follows:"
    assert image.media_type == "image/jpeg"
    assert instructions.text.startswith("The following actions are available at this step: "
                                        "left,\n")
    assert instructions.text.endswith("PLACEHOLDER scratchpad instruction.\nSecond line.")
    assert replay_transcript(path).status == "reproduced"


def test_the_episode_command_takes_the_options_under_autumnbench_only(task_dir, tmp_path,
                                                                      capsys):
    from llm_eval.cli import EXIT_OK, EXIT_USAGE, main

    script = tmp_path / "lines.txt"
    script.write_text("noop\ngo-to-test\nquit\n", encoding="utf-8")
    task = str(task_dir / "drizzle-planning.json")
    assert main(["episode", "warehouse", "--family", "planning", "--agent", "random",
                 "--skip-frames"]) == EXIT_USAGE
    assert "--skip-frames: the published harness's settings" in capsys.readouterr().err
    assert main(["episode", task, "--protocol", "autumnbench", "--seed", "1", "--agent",
                 f"script/{script}", "--harness-texts", str(CHECKOUT), "--skip-frames",
                 "--json", "--steps"]) == EXIT_OK
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert steps[0]["observation"]["text"].startswith("PLACEHOLDER interaction intro.")
    assert steps[1]["observation"]["text"].startswith("PLACEHOLDER {skipped} 8 frames; grid: ")
    assert main(["episode", task, "--protocol", "autumnbench", "--seed", "1", "--agent",
                 "random", "--harness-texts", str(tmp_path)]) != EXIT_OK
    assert "holds neither" in capsys.readouterr().err


def test_the_run_command_takes_the_options_as_spec_keys(task_dir, tmp_path):
    from llm_eval.cli import EXIT_OK, main

    out = tmp_path / "run"
    assert main(["run", "--model", "oracle", "--tasks", str(task_dir), "--families",
                 "planning", "--protocol", "autumnbench", "--no-stack-frames",
                 "--skip-frames", "--harness-texts", str(CHECKOUT), "-o", str(out)]) == EXIT_OK
    (path,) = (out / "transcripts").glob("*.jsonl*")
    transcript = read_transcript(path)
    settings = transcript.header.settings
    assert settings["stack_frames"] is False and settings["skip_frames"] is True
    assert settings["harness_texts"]["texts"]["planning_intro"]["file"] == "concrete_envs.py"
    first = transcript.of_type("observation")[0]
    assert first.observation["text"].startswith("PLACEHOLDER interaction intro.")
