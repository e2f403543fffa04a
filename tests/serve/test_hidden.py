"""No response of the server, over whole episodes, holds a task's hidden half: the answer's
sources, the witness, the change program, trigger and condition (the agents' definition of
hidden text, ``tests/agents/test_llm_agent.py::_hidden_needles``)."""

from __future__ import annotations

import pytest
from serve_helpers import Participant, hidden_needles, play_whole, serve_client
from tiers import per_task

from llm_eval.tasks.store import all_tasks, load_task


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with serve_client(tmp_path_factory.mktemp("hidden") / "run") as client:
        yield client


def _search(responses: list[str], task) -> None:
    needles = hidden_needles(task)
    assert needles, task.id
    for text in responses:
        for needle in needles:
            assert needle not in text, (task.id, needle[:60])


@pytest.mark.parametrize("task", per_task(all_tasks()))
def test_no_response_of_a_whole_worldtest_episode_holds_hidden_text(client, task):
    p = Participant(client, "seeker")
    first = p.start(task.world, task.family)
    assert first["family"] is None and not {"mfp", "cd", "planning"} & set(first)
    play_whole(p)
    assert p.view["done"]
    _search(p.responses, task)


@pytest.mark.parametrize("family", ["mfp", "cd", "planning"])
def test_no_response_of_an_autumnbench_episode_holds_hidden_text(client, family):
    task = load_task("gravity", family)
    p = Participant(client, "seeker")
    p.start("gravity", family, protocol="autumnbench")
    p.play(["left", "click 1 1", "go-to-test"])
    for _ in range(40):
        if p.view["done"]:
            break
        offered = p.view["offered"]
        if "I found the change!" in offered:
            p.play(["I found the change!", "choose_frame_1", "Submit choice"])
        elif any(o.startswith("choose_option_") for o in offered):
            p.act("choose_option_0")
        elif "step" in offered:
            p.act("step")
        elif family == "planning":
            p.act("quit")
        else:
            p.act("noop")
    assert p.view["done"]
    _search(p.responses, task)


def test_the_search_catches_a_leak(client, monkeypatch):
    """The check above can fail: a view that leaked the CD condition is caught."""
    import llm_eval.serve.live as live

    task = load_task("gravity", "cd")
    leaky = live.page_view
    monkeypatch.setattr(live, "page_view",
                        lambda obs: {**leaky(obs), "note": task.hidden.condition})
    p = Participant(client, "seeker")
    p.start("gravity", "cd")
    play_whole(p)
    with pytest.raises(AssertionError):
        _search(p.responses, task)
