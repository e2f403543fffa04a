"""The transcript viewer: steps grouped as the agent lived them, caps stated, files guarded."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from llm_eval.report.viewer import ViewerLimits, read_phases, render_viewer, select_episodes
from llm_eval.runstore import RunStore
from llm_eval.transcripts import read_transcript, transcript_files


def episodes_of(run_dir: Path) -> list[SimpleNamespace]:
    """What the viewer needs of an episode, straight from the store."""
    with RunStore(run_dir / "run.sqlite") as store:
        (run,) = store.runs()
        rows = store.jobs(run["id"])
    return [SimpleNamespace(job_id=r.id, settings=r.settings, status=r.status, score=r.score,
                            model=r.settings["model"], task=r.settings["task"],
                            seed=r.settings["seed"], repeat=r.settings["repeat"], error=r.error,
                            transcript=(run_dir / r.transcript) if r.transcript else None)
            for r in rows]


def test_steps_follow_the_observations_and_actions(random_oracle_run):
    for path in transcript_files(random_oracle_run / "transcripts"):
        transcript = read_transcript(path)
        phases = read_phases(transcript.events)
        assert [p.name for p in phases] == [e.phase for e in transcript.of_type("phase_start")]
        for phase in phases:
            actions = [a for a in transcript.of_type("action") if a.phase == phase.name]
            assert [s.action for s in phase.steps] == actions
            assert all(s.observation is not None for s in phase.steps)
            assert phase.end is not None and phase.end.steps == len(actions)


def test_the_viewer_caps_and_says_what_it_left_out(random_oracle_run):
    episodes = episodes_of(random_oracle_run)
    limits = ViewerLimits(max_transcripts=3, max_steps_per_phase=4)
    html = render_viewer(episodes, limits)
    assert "3 of 12 episodes shown" in html and "9 transcripts left out" in html
    assert html.count('<details class="episode">') == 3
    assert "steps not shown (the page keeps the first 3 and the last 1 of each phase)" in html
    chosen = select_episodes(episodes, 3)
    assert {e.model for e in chosen} == {"random", "oracle"}   # models taken in turn
    assert html.count('<img src="data:image/png;base64,') >= 3


def test_model_calls_images_and_hostile_file_references(hostile_run):
    episodes = episodes_of(hostile_run)
    html = render_viewer(episodes, ViewerLimits())
    assert "2 of 3 episodes shown" in html and "1 episodes have no transcript" in html
    assert "image(s) sent to the model" in html and 'class="sent"' in html
    # a hash that is a path, or markup, is never opened and is shown escaped
    assert "malformed hash &#x27;../../../etc/passwd&#x27;" in html
    assert "root:" not in html
    assert "tokens in 1000, out 50, reasoning 10; cost $0.002000" in html
    assert "<script>" not in html and "<svg" not in html and "<img src=x" not in html


def test_grids_that_cannot_be_drawn_give_no_image():
    from llm_eval.report.frames import frame_png

    square = [["black", "red"], ["blue", "black"]]
    assert frame_png(square, "black").startswith("data:image/png;base64,")
    assert frame_png(square, "black", masked=[[1, 1]]) != frame_png(square, "black")
    for rows, masked in (([["black", "red"]], ()), ("not a grid", ()), ([], ()),
                         ([["a"] * 65] * 65, ()), (square, [[5, 5]]), (square, [["x"]])):
        assert frame_png(rows, "black", masked=masked) is None
