"""The ``autumnbench`` profile's image mode against docs/spec/autumnbench-harness.md [R2, I7,
M9, X12, P7, A7]: the harness's JPEG of a grid (``render.harness_jpeg``), what each phase sends
in image mode, and what the LLM agent puts in front of the model. Phases are driven on the drizzle
fixture (a 6x6 world, the standard library's frame rate 8, background black)."""

from __future__ import annotations

import io
import json

import autumnbench_fixture as F
import pytest
from PIL import Image

from llm_eval.adapters import GenerationConfig, ImagePart, Response
from llm_eval.adapters.base import Adapter
from llm_eval.agents.llm import LLMAgent
from llm_eval.autumn import Frame
from llm_eval.render import RenderError
from llm_eval.render.harness_jpeg import (
    AXES_BOX,
    FIGURE_PIXELS,
    MASK_RGB,
    cell_box,
    harness_rgb,
    render_harness_jpeg,
)
from llm_eval.worldtest.autumnbench import (
    AutumnBenchCD,
    AutumnBenchInteraction,
    AutumnBenchPlanning,
)
from llm_eval.worldtest.autumnbench.base import harness_picture
from llm_eval.worldtest.autumnbench.cd import CD_INTRO, SUBMIT
from llm_eval.worldtest.autumnbench.interaction import INTERACTION_INTRO, SKIPPED
from llm_eval.worldtest.autumnbench.mfp import MFP_INTRO, AutumnBenchMFP
from llm_eval.worldtest.autumnbench.planning import PLANNING_INTRO, QUIT_TEXT
from llm_eval.worldtest.autumnbench.settings import AutumnBenchSettings, render_mode_of
from llm_eval.worldtest.autumnbench.view import model_view
from llm_eval.worldtest.observation import Picture
from llm_eval.worldtest.programs import modified_world, original_world

IMAGE = AutumnBenchSettings(render_mode="image")
N = 8   # drizzle's frame rate (the standard library's)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    return F.import_tasks(tmp_path_factory.mktemp("autumnbench-image"))


class ScriptedAdapter(Adapter):
    """Answers each request with the next text reply; keeps the requests."""

    provider = "scripted"

    def __init__(self, replies) -> None:
        super().__init__("scripted-model")
        self.replies = list(replies)
        self.requests = []

    async def complete(self, request):
        self.requests.append(request)
        return Response(provider=self.provider, model_requested=self.model, model=self.model,
                        text=self.replies.pop(0)[1], stop_reason="end_turn")


def pixels(jpeg: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(jpeg))
    assert image.format == "JPEG"
    return image.convert("RGB")


def near(got, want, tolerance=24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(got, want))


def centre(size: int, row: int, col: int) -> tuple[int, int]:
    left, top, right, bottom = cell_box(size, row, col)
    return round((left + right) / 2), round((top + bottom) / 2)


# -- R2: the harness's picture of a grid ------------------------------------------------------

def test_r2_a_5_inch_jpeg_at_100_dpi_square_cells_row_0_at_the_top():
    rows = [["black"] * 4 for _ in range(4)]
    rows[0][0], rows[3][1] = "red", "gold"       # row 0 is the top row, column 1 the second
    image = pixels(render_harness_jpeg(rows))
    assert image.size == (FIGURE_PIXELS, FIGURE_PIXELS) == (500, 500)
    assert Image.open(io.BytesIO(render_harness_jpeg(rows))).info["dpi"] == (100, 100)
    assert near(image.getpixel(centre(4, 0, 0)), (255, 0, 0))
    assert near(image.getpixel(centre(4, 3, 1)), harness_rgb("gold"))
    assert near(image.getpixel(centre(4, 3, 0)), (0, 0, 0))
    # the axes: a square of 385 pixels, centred in matplotlib's default subplot box
    left, top, side = AXES_BOX
    assert (left, top, side) == (63.75, 60.0, 385.0)
    assert near(image.getpixel((30, 250)), (255, 255, 255))          # outside the axes: white
    # between two cells: a gap of 0.01 of the axes (white), edged in black
    _, _, right0, _ = cell_box(4, 0, 0)
    gap_x = round(right0 + 0.005 * side)
    assert near(image.getpixel((gap_x, centre(4, 1, 1)[1])), (255, 255, 255), 60)
    assert cell_box(4, 0, 1)[0] - right0 == pytest.approx(0.01 * side)


def test_r2_unknown_names_take_the_fill_mask_is_slategrey_crossed_in_the_string_variant():
    rows = [["notacolour", "mask"], ["rgb(1,2,3)", "white"]]
    crossed = pixels(render_harness_jpeg(rows, fill="navy", crosses=True))
    plain = pixels(render_harness_jpeg(rows, fill="navy", crosses=False))
    assert near(crossed.getpixel(centre(2, 0, 0)), harness_rgb("navy"))
    assert near(crossed.getpixel(centre(2, 1, 0)), harness_rgb("navy"))   # not matplotlib's
    x, y = centre(2, 0, 1)
    assert near(crossed.getpixel((x, y)), (0, 0, 0), 40)               # the cross's middle
    assert near(plain.getpixel((x, y)), MASK_RGB)                      # slategrey, no cross
    arm = (cell_box(2, 0, 1)[2] - cell_box(2, 0, 1)[0]) * 0.4
    assert near(crossed.getpixel((round(x + arm), y)), MASK_RGB)      # off the diagonals
    assert harness_rgb("transparent") is None and harness_rgb("slategrey") == MASK_RGB


def test_r2_a_grid_that_is_not_square_or_a_fill_that_is_no_colour_is_refused():
    with pytest.raises(RenderError, match="square"):
        render_harness_jpeg([["black", "black"]])
    with pytest.raises(RenderError, match="fill colour 'nocolour'"):
        render_harness_jpeg([["black"]], fill="nocolour")


def test_r2_interaction_draws_the_programs_background_cd_and_planning_black():
    frame = Frame((("white", "red"), ("white", "white")), "white")
    assert harness_picture(frame, program_background=True) == Picture(frame.grid, "white")
    assert harness_picture(frame, program_background=False) == Picture(
        (("black", "red"), ("black", "black")), "black")


# -- I7: the interaction phase in image mode ---------------------------------------------------

def test_i7_a_stacked_action_runs_1_plus_n_ticks_and_sends_the_last_frame_only(tasks):
    phase = AutumnBenchInteraction(original_world(tasks["cd"]), budget=10, settings=IMAGE)
    first = phase.reset()
    assert first.image_mode and first.text == f"{INTERACTION_INTRO}\n\nThe initial grid is:\n"
    grids = F.drizzle_grids(["noop"], ticks=N + 1)
    assert first.pictures == (Picture(grids[0][0], "black"),)
    obs, reward, *_ = phase.step("noop")
    assert obs.text == "" and reward == 0.0
    assert obs.pictures == (Picture(grids[1][-1], "black"),)
    assert phase.world.frame.grid == grids[1][-1] != F.drizzle_grids(["noop"], ticks=N)[1][-1]
    invalid, *_ = phase.step("jump")          # no tick, the current grid's image [I5]
    assert invalid.text == "" and invalid.pictures == obs.pictures


def test_i7_skip_frames_in_image_mode_says_true_frames(tasks):
    settings = AutumnBenchSettings(render_mode="image", skip_frames=True)
    phase = AutumnBenchInteraction(original_world(tasks["cd"]), budget=10, settings=settings)
    phase.reset()
    obs, *_ = phase.step("noop")
    assert obs.text == SKIPPED.format(count=True) and obs.text.startswith("True frames")
    assert obs.pictures == (Picture(F.drizzle_grids(["noop"], ticks=N + 1)[1][-1], "black"),)


def test_i6_skip_frames_in_text_mode_shows_n_and_the_last_grid(tasks):
    phase = AutumnBenchInteraction(original_world(tasks["cd"]), budget=10,
                               settings=AutumnBenchSettings(skip_frames=True))
    phase.reset()
    obs, *_ = phase.step("noop")
    grids = F.drizzle_grids(["noop"], ticks=N)
    assert obs.text == SKIPPED.format(count=N) + F.grid_text(grids[1][-1])
    assert not obs.image_mode and obs.pictures == ()


def test_i7_without_stacking_image_mode_runs_one_tick(tasks):
    settings = AutumnBenchSettings(render_mode="image", stack_frames=False)
    phase = AutumnBenchInteraction(original_world(tasks["cd"]), budget=10, settings=settings)
    phase.reset()
    obs, *_ = phase.step("left")
    assert obs.text == ""
    assert obs.pictures == (Picture(F.drizzle_grids(["left"])[1][0], "black"),)


# -- M9: masked-frame prediction in image mode -------------------------------------------------

def mfp_phase(task) -> AutumnBenchMFP:
    return AutumnBenchMFP(task.public, answer=task.hidden.answer, background="black", budget=100,
                      settings=IMAGE)


def test_m9_frames_are_images_and_their_json_drops_render(tasks):
    phase = mfp_phase(tasks["mfp"])
    first = phase.reset()
    last = len(tasks["mfp"].public.frames) - 1
    assert first.text == MFP_INTRO + "\n" + json.dumps(
        {"video_location": f"0/{last}", "action_took": "start", "is_finished": False})
    frame0 = tasks["mfp"].public.frames[0]
    assert first.pictures == (Picture(tuple(tuple("mask" if c is None else c for c in row)
                                            for row in frame0), "black", crosses=True),)
    for _ in range(last - 1):
        obs, *_ = phase.step("step")
    masked = obs.pictures[0].rows
    assert any("mask" in row for row in masked) and obs.pictures[0].crosses
    assert '"render"' not in obs.text


def test_m9_a7_finished_frames_send_no_image_and_no_choices(tasks):
    phase = mfp_phase(tasks["mfp"])
    phase.reset()
    last = len(tasks["mfp"].public.frames) - 1
    for _ in range(last):
        obs, *_ = phase.step("step")
    assert json.loads(obs.text) == {"video_location": f"{last}/{last}",
                                    "action_took": tasks["mfp"].public.actions[-1],
                                    "is_finished": True}
    assert obs.image_mode and obs.pictures == ()
    invalid, *_ = phase.step("quit")
    assert invalid.pictures == ()


# -- X12: change detection is never scored in image mode ---------------------------------------

def test_x12_submit_raises_then_the_next_step_ends_the_test_with_reward_0(tasks):
    phase = AutumnBenchCD(modified_world(tasks["cd"]), condition=tasks["cd"].hidden.condition,
                      budget=100, settings=IMAGE)
    first = phase.reset()
    assert first.text == f"{CD_INTRO}\n\nHere is the initial frame: "
    assert len(first.pictures) == 1
    for line in F.CD_WINNING[:-1]:
        obs, reward, terminated, *_ = phase.step(line)
        assert not terminated
    assert obs.text.startswith(CD_INTRO) and obs.pictures == first.pictures   # frames[0]
    obs, reward, terminated, _, info = phase.step(SUBMIT)
    assert (obs.text, reward, terminated, obs.pictures) == ("", 0.0, False, ())
    assert "image mode" in info["error"]
    obs, reward, terminated, *_ = phase.step("choose_frame_1")
    assert terminated and reward == 0.0 and phase.raw_reward == 0.0
    assert obs.text == "Here is the current frame: " and len(obs.pictures) == 1


def test_x12_through_the_runner_the_winning_script_scores_0(tasks, tmp_path):
    result = F.play(tasks["cd"], ["go-to-test", *F.CD_WINNING, "choose_frame_0"], tmp_path,
                    autumnbench=IMAGE)
    assert result.raw_reward == 0.0 and result.test.ended == "terminated"
    text = F.play(tasks["cd"], ["go-to-test", *F.CD_WINNING], tmp_path)
    assert text.raw_reward == 1.0           # the same script scores in text mode


# -- P7: planning in image mode ----------------------------------------------------------------

def test_p7_the_grid_and_the_goal_as_images_the_mask_as_text(tasks):
    task = tasks["planning"]
    phase = AutumnBenchPlanning(original_world(task), goal=task.public.goal, mask=task.public.mask,
                            budget=100, settings=IMAGE)
    first = phase.reset()
    mask = json.dumps({"highlight_mask": [[int(m) for m in row] for row in task.public.mask]})
    assert first.text == f"{PLANNING_INTRO}\nThe initial grid is: {mask}"
    grid, goal = first.pictures
    assert grid == Picture(phase.world.frame.grid, "black")
    assert goal == Picture(tuple(tuple(r) for r in task.public.goal), "black", crosses=True)
    obs, *_ = phase.step("left")
    assert obs.text == f"The current grid is: {mask}" and len(obs.pictures) == 2
    obs, *_ = phase.step("quit")
    assert obs.text == QUIT_TEXT and obs.pictures == ()


# -- A7: what the model is sent ----------------------------------------------------------------

def test_a7_the_model_gets_a_line_and_jpegs_not_the_observation_text(tasks):
    task, _ = F.seeded(tasks["planning"], 1, "autumnbench")
    replies = [("text", "<action>go-to-test</action>"), ("text", "<action>left</action>"),
               ("text", "<action>quit</action>")]
    adapter = ScriptedAdapter(replies)
    agent = LLMAgent("scripted/model", adapter=adapter, prompt_variant="autumnbench",
                     rendering="png", config=GenerationConfig(tool_mode="tags"))
    result = F.run_episode(task, agent, protocol="autumnbench", autumnbench=IMAGE)
    assert [r.action for r in result.records] == ["go-to-test", "left", "quit"]
    first, test = (adapter.requests[i].messages[-1] for i in (0, 1))
    texts = [p.text for p in first.parts if p.type == "text"]
    images = [p for p in first.parts if isinstance(p, ImagePart)]
    # the line, the image, the instructions [A7]
    assert [p.type for p in first.parts] == ["text", "image", "text"]
    assert texts[0] == "The current grid is as follows:"
    assert texts[1].startswith("The actions you can take at this step are: left,\n")
    assert INTERACTION_INTRO not in str(first.model_dump())
    assert len(images) == 1 and images[0].media_type == "image/jpeg"
    assert pixels(__import__("base64").b64decode(images[0].data)).size == (500, 500)
    # planning: two images, the grid and the goal, and not the mask's text
    assert sum(isinstance(p, ImagePart) for p in test.parts) == 2
    assert "highlight_mask" not in str(test.model_dump())
    # the history keeps every turn's images, as the harness's does [A4, A7]
    last = adapter.requests[2]
    assert [sum(isinstance(p, ImagePart) for p in m.parts) for m in last.messages
            if m.role == "user"] == [1, 2, 2]
    assert last.messages[1] == first


def test_a7_model_view_in_text_mode_is_the_text():
    obs = type("O", (), {"image_mode": False, "text": "abc", "pictures": ()})()
    assert model_view(obs) == ("abc", ())


def test_a_rendering_is_text_or_image_under_the_profile():
    assert render_mode_of("png") == "image" and render_mode_of("json") == "text"
    assert render_mode_of(("compact",)) == "text"
    with pytest.raises(ValueError, match="not both"):
        render_mode_of("compact+png")


# -- a scripted episode in image mode replays exactly -----------------------------------------

def test_a_scripted_episode_in_image_mode_plays_the_same_twice(tasks, tmp_path):
    lines = ["left", "noop", "go-to-test", *F.PLANNING_WINNING]
    runs = [F.play(tasks["planning"], lines, tmp_path, autumnbench=IMAGE) for _ in range(2)]
    assert runs[0].to_dict(steps=True) == runs[1].to_dict(steps=True)
    assert runs[0].raw_reward == 1.0
    pictures = [[p for r in run.records for p in r.observation.pictures] for run in runs]
    assert pictures[0] == pictures[1] and len(pictures[0]) == 3 + 3 * 2
    # the same picture is the same JPEG, byte for byte
    last = [runs[i].records[-1].observation.pictures[-1] for i in (0, 1)]
    jpegs = [render_harness_jpeg(p.rows, fill=p.fill, crosses=p.crosses) for p in last]
    assert jpegs[0] == jpegs[1]
