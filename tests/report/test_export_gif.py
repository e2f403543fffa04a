"""``llm-eval export gif``: a 200-step episode of a demo world as an animated GIF (and APNG)
under 1 MB, one frame per observation with its phase, step and action drawn under it."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from llm_eval.cli import main
from llm_eval.report.export_gif import (
    BAND_PX,
    ExportError,
    Shot,
    _caption,
    _picture,
    animate,
    episode_frames,
    export_gif,
)


@pytest.fixture(scope="module")
def long_episode(tmp_path_factory) -> Path:
    """sparks (a demo world), planning, 200 interaction steps played from a script."""
    from llm_eval.agents.script import ScriptAgent
    from llm_eval.sweep import Sweep
    from llm_eval.sweep.job import execute_job

    folder = tmp_path_factory.mktemp("gif")
    rng = random.Random(1)
    actions = [rng.choice(["left", "right", "up", "down", "noop",
                           f"click {rng.randrange(8)} {rng.randrange(8)}"]) for _ in range(200)]
    script = folder / "actions.txt"
    script.write_text("\n".join(actions) + "\n")
    spec = Sweep.from_data({"models": ["random"], "worlds": ["sparks"], "families": ["planning"],
                            "seeds": [1], "budgets": {"interaction_steps": [200]}}, "test")
    path = folder / "episode.jsonl.gz"
    outcome = execute_job(spec.expand()[0], spec, path, player=ScriptAgent(script))
    assert outcome.status == "done"
    return path


@pytest.mark.parametrize("suffix", [".gif", ".png"])
def test_a_200_step_episode_is_under_1_mb(long_episode, tmp_path, suffix):
    shots = list(episode_frames(long_episode))
    assert len(shots) == 201 and sum(s.phase == "interaction" for s in shots) == 200
    assert main(["export", "gif", str(long_episode), "-o", str(tmp_path / f"e{suffix}")]) == 0
    data = (tmp_path / f"e{suffix}").read_bytes()
    assert len(data) < 1_000_000
    image = Image.open(io.BytesIO(data))
    assert image.format == ("GIF" if suffix == ".gif" else "PNG")
    assert image.n_frames == 201 and image.is_animated


def test_captions_name_phase_step_and_action():
    frame = [["black", "red"], ["blue", "black"]]
    a = Shot("interaction", 12, frame, "black", (), "click 1 0")
    b = Shot("interaction", 12, frame, "black", (), "left")
    assert _caption(a) == "interaction step 12: click 1 0"
    assert _caption(Shot("cd", 3, frame, "black", (), None)) == "cd step 3: -"
    assert len(_caption(Shot("cd", 3, frame, "black", (), "x" * 200))) == 48
    from PIL import ImageFont
    font = ImageFont.load_default()
    pa, pb = _picture(a, font), _picture(b, font)
    grid_height = pa.height - BAND_PX
    diff = ImageChops.difference(pa, pb).getbbox()
    assert diff is not None and diff[1] >= grid_height     # only the band differs
    band = pa.crop((0, grid_height, pa.width, pa.height)).convert("L")
    assert band.getextrema()[0] < 128                       # text is drawn there


def test_the_action_is_the_one_answering_each_observation(long_episode):
    from llm_eval.transcripts import TranscriptStream

    actions = [e.action for e in TranscriptStream(long_episode) if e.type == "action"]
    shots = [s for s in episode_frames(long_episode) if s.action is not None]
    assert [s.action.removesuffix(" (invalid)") for s in shots] == actions


def test_bad_input_is_refused_naming_it(long_episode, tmp_path, capsys):
    with pytest.raises(ExportError, match="suffix"):
        export_gif(long_episode, tmp_path / "e.mp4")
    with pytest.raises(ExportError, match="no frame to draw"):
        animate([Shot("interaction", 0, "not a grid", "black", (), "left")])
    assert main(["export", "gif", str(tmp_path / "missing"), "-o", str(tmp_path / "x.gif")]) == 2
    assert "no such run directory or transcript" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()


def test_a_run_directory_needs_job_when_it_holds_several(tmp_path, capsys):
    from llm_eval.analysis.data import load_episodes
    from llm_eval.sweep import Sweep, run_sweep

    run_sweep(Sweep.from_data({"models": ["random", "oracle"], "worlds": ["warehouse"],
                               "families": ["mfp"], "seeds": [1]}, "test"), tmp_path / "run")
    assert main(["export", "gif", str(tmp_path / "run"), "-o", str(tmp_path / "a.gif")]) == 2
    assert "holds 2 transcripts; choose one with --job" in capsys.readouterr().err
    assert main(["export", "gif", str(tmp_path / "run"), "--job", "nope", "-o",
                 str(tmp_path / "a.gif")]) == 2
    job = load_episodes([tmp_path / "run"])[0].job_id
    assert main(["export", "gif", str(tmp_path / "run"), "--job", job, "-o",
                 str(tmp_path / "a.gif")]) == 0
    assert Image.open(tmp_path / "a.gif").n_frames > 1


def test_the_viewer_plays_each_episode_as_an_animated_png(tmp_path):
    import base64
    import re

    from llm_eval.analysis.data import load_episodes
    from llm_eval.report.page import build_report
    from llm_eval.sweep import Sweep, run_sweep

    run_sweep(Sweep.from_data({"models": ["oracle"], "worlds": ["warehouse"],
                               "families": ["cd"], "seeds": [1]}, "test"), tmp_path / "run")
    (episode,) = load_episodes([tmp_path / "run"])
    page = build_report([tmp_path / "run"], tmp_path / "r.html").read_text()
    found = re.findall(r'<img src="data:image/png;base64,([^"]+)" alt="animation of ', page)
    assert len(found) == 1
    image = Image.open(io.BytesIO(base64.b64decode(found[0])))
    assert image.is_animated
    assert image.n_frames == len(list(episode_frames(episode.transcript)))
