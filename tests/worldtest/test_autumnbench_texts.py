"""``--harness-texts DIR``: the published harness's own instruction texts read from a checkout
at run time (``worldtest.autumnbench.texts``). The checkout here is a fixture of our own
making, ``tests/fixtures/autumnbench-harness/``: the harness's file layout and names with
placeholder strings, so every test shows the strings arrive verbatim while the project holds
none of the harness's prose."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import autumnbench_fixture as F
import pytest

from llm_eval.agents.prompts import load_prompts
from llm_eval.errors import LlmEvalError
from llm_eval.worldtest.autumnbench import (
    AutumnBenchCD,
    AutumnBenchInteraction,
    AutumnBenchPlanning,
)
from llm_eval.worldtest.autumnbench.mfp import AutumnBenchMFP
from llm_eval.worldtest.autumnbench.settings import AutumnBenchSettings
from llm_eval.worldtest.autumnbench.texts import (
    SUBFOLDER,
    TEXT_KEYS,
    HarnessTextsError,
    load_harness_texts,
)
from llm_eval.worldtest.autumnbench.view import harness_prompts
from llm_eval.worldtest.programs import modified_world, original_world

CHECKOUT = Path(__file__).resolve().parents[1] / "fixtures" / "autumnbench-harness"
FOLDER = CHECKOUT / SUBFOLDER


@pytest.fixture(scope="module")
def texts():
    return load_harness_texts(CHECKOUT)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return F.import_tasks(tmp_path_factory.mktemp("autumnbench-texts"))


def test_every_text_is_read_from_its_file_and_place(texts):
    assert set(texts.values) == set(TEXT_KEYS)
    assert texts["system"] == ("PLACEHOLDER system prompt {with braces} and the hint.\n"
                               "Second line, <action>click 1 2</action>.\n")
    assert texts["action_prompt"] == "PLACEHOLDER reflection instruction."
    assert texts["response_prompt"] == "PLACEHOLDER scratchpad instruction.\nSecond line."
    assert texts["interaction_intro"] == "PLACEHOLDER interaction intro.\nIt spans lines.\n\n"
    assert texts["interaction_grid_line"] == "\nPLACEHOLDER grid line: \n"
    assert texts["cd_intro"] == "PLACEHOLDER cd intro, in parts. PLACEHOLDER initial frame: "
    assert texts["planning_intro"] == ("PLACEHOLDER planning intro.\n            PLACEHOLDER "
                                       "initial grid:\n            ")
    assert texts["mfp_intro"] == "PLACEHOLDER mfp intro (text mode).\n"   # not the image one
    # a template: the logger's f-string and the image branch's (one placeholder) are not it
    assert texts["skip_line"] == "PLACEHOLDER {{skipped}} {0} frames; grid: {1}"


def test_the_record_names_each_text_its_file_and_their_sha256(texts):
    record = texts.record()
    for name in ("prompts.py", "concrete_envs.py"):
        assert record["files"][name] == hashlib.sha256((FOLDER / name).read_bytes()).hexdigest()
    system = record["texts"]["system"]
    assert system == {"file": "prompts.py", "where": "SYSTEM_PROMPT_WITH_HINT",
                      "sha256": hashlib.sha256(texts["system"].encode()).hexdigest()}
    assert record["texts"]["cd_intro"]["file"] == "concrete_envs.py"
    # the harness's folder itself is accepted too, and gives the same texts
    assert load_harness_texts(FOLDER).values == texts.values
    assert texts.folder == str(FOLDER.resolve())


def test_the_first_observation_of_each_phase_uses_the_strings_verbatim(texts, tasks):
    settings = AutumnBenchSettings(texts=texts)
    first = AutumnBenchInteraction(original_world(tasks["cd"]), budget=5, settings=settings).reset()
    grid = F.grid_text(F.drizzle_grids([])[0][0])
    assert first.text == texts["interaction_intro"] + texts["interaction_grid_line"] + grid
    cd = AutumnBenchCD(modified_world(tasks["cd"]), condition=tasks["cd"].hidden.condition,
                   budget=5, settings=settings).reset()
    assert cd.text == texts["cd_intro"] + grid
    task = tasks["planning"]
    planning = AutumnBenchPlanning(original_world(task), goal=task.public.goal,
                               mask=task.public.mask, budget=5, settings=settings).reset()
    assert planning.text.startswith(texts["planning_intro"] + '{"render": ')
    mfp = AutumnBenchMFP(tasks["mfp"].public, answer=0, background="black", budget=5,
                     settings=settings).reset()
    assert mfp.text.startswith(texts["mfp_intro"] + '{"video_location": "0/')
    # later observations are the harness's as before
    phase = AutumnBenchInteraction(original_world(tasks["cd"]), budget=5, settings=settings)
    phase.reset()
    assert phase.step("reset")[0].text == grid


def test_the_skip_frames_line_is_the_harnesss_with_the_count_and_the_grid(texts, tasks):
    settings = AutumnBenchSettings(texts=texts, skip_frames=True)
    phase = AutumnBenchInteraction(original_world(tasks["cd"]), budget=5, settings=settings)
    phase.reset()
    obs, *_ = phase.step("noop")
    last = F.grid_text(F.drizzle_grids(["noop"], ticks=8)[1][-1])
    assert obs.text == f"PLACEHOLDER {{skipped}} 8 frames; grid: {last}"


def test_without_texts_the_wording_is_ours(tasks):
    first = AutumnBenchInteraction(original_world(tasks["cd"]), budget=5).reset()
    assert "PLACEHOLDER" not in first.text and first.text.startswith("This is the interactive")


def test_the_model_gets_the_system_prompt_and_turn_instructions_verbatim(texts):
    prompts = harness_prompts(load_prompts("autumnbench"), texts)
    assert prompts.render("system", grid_size=6, rendering="", answer_format="") \
        == texts["system"]                                  # braces and last newline kept
    turn = prompts.render("turn", frame="OBS", header="left,\nright")
    assert turn == ("OBS\n\nThe following actions are available at this step: left,\nright\n"
                    + texts["action_prompt"] + "\n" + texts["response_prompt"])
    assert prompts.render("cd", budget=1, actions="", declare_after=3) == \
        load_prompts("autumnbench").render("cd", budget=1, actions="", declare_after=3)


def test_a_directory_without_the_harness_is_refused_naming_what_is_missing(tmp_path):
    with pytest.raises(HarnessTextsError, match="not a directory"):
        load_harness_texts(tmp_path / "nowhere")
    with pytest.raises(HarnessTextsError, match="holds neither"):
        load_harness_texts(tmp_path)
    copy = tmp_path / "checkout"
    shutil.copytree(CHECKOUT, copy)
    (copy / SUBFOLDER / "concrete_envs.py").unlink()
    with pytest.raises(HarnessTextsError, match=r"concrete_envs\.py: missing"):
        load_harness_texts(copy)
    assert issubclass(HarnessTextsError, LlmEvalError)


@pytest.mark.parametrize(("file", "old", "new", "names"), [
    ("prompts.py", "ACTION_PROMPT_REFLEXION =", "ACTION_PROMPT_OTHER =",
     "ACTION_PROMPT_REFLEXION"),
    ("prompts.py", 'RESPONSE_PROMPT_SCRATCHPAD = "', 'RESPONSE_PROMPT_SCRATCHPAD = str("',
     "RESPONSE_PROMPT_SCRATCHPAD"),
    ("concrete_envs.py", "class CDSliderEnvironment", "class CDOther", "CDSliderEnvironment"),
    ("concrete_envs.py", '"\\nPLACEHOLDER grid line: \\n"', "self.line",
     "self.get_instruction_text"),
    ("concrete_envs.py", "frames; grid: {observation.text}", "frames; grid: {x!r}",
     "text_data= with two placeholders"),
])
def test_a_string_not_where_the_harness_has_it_is_refused_naming_file_and_place(
        tmp_path, file, old, new, names):
    copy = tmp_path / "checkout"
    shutil.copytree(CHECKOUT, copy)
    path = copy / SUBFOLDER / file
    source = path.read_text(encoding="utf-8")
    assert old in source
    text = source.replace(old, new)
    if "str(" in new:
        text = text.replace('Second line."', 'Second line.")')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(HarnessTextsError) as caught:
        load_harness_texts(copy)
    assert str(path.resolve()) in str(caught.value) and names in str(caught.value)


def test_a_file_that_is_not_python_is_refused(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(CHECKOUT, copy)
    (copy / SUBFOLDER / "prompts.py").write_bytes(b"\xff\xfe not python")
    with pytest.raises(HarnessTextsError, match=r"prompts\.py: not readable Python"):
        load_harness_texts(copy)


def test_nothing_of_the_checkout_is_executed(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(CHECKOUT, copy)
    marker = tmp_path / "ran"
    path = copy / SUBFOLDER / "prompts.py"
    path.write_text(f"open({str(marker)!r}, 'w').write('x')\n"
                    + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_harness_texts(copy)["action_prompt"] == "PLACEHOLDER reflection instruction."
    assert not marker.exists()


def test_the_record_is_json(texts):
    assert json.loads(json.dumps(texts.record())) == texts.record()
