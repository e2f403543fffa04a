"""No response of the server, over whole episodes, holds a task's hidden half, in any form.

The hidden half (``task.hidden``): the MFP answer index and the options' sources, the CD
change (its whole modified program, trigger, condition, description, witness) and the
planning witness. Every response is searched as text (raw, and HTML-unescaped) and, when it
is JSON, parsed:

- every hidden text of 8 characters or more (the agents' definition,
  ``tests/agents/test_llm_agent.py::_hidden_needles``), and the CD task's modified program:
  whole, and each of its lines the world's own program does not have;
- every hidden action list: as a JSON list anywhere in a parsed response (or a run of 4 or
  more of its actions in a list), and joined by any of the usual separators in the text;
- hidden numbers in context: a parsed response holds only the keys the page's views have
  (``VIEW_KEYS``: a new field is a decision, made here), no key names a hidden thing, and no
  text says "answer 5" or "correct: 5" of the true option.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from serve_helpers import Participant, hidden_needles, play_whole, serve_client
from tiers import per_task

from llm_eval.tasks.store import all_tasks, load_task
from llm_eval.tasks.trajectory import changed_program_text
from llm_eval.worlds.registry import world_spec

# every key path a JSON response of an episode may hold ("[]": any element of a list)
_FORM_KEYS = {"kind", "form", "help", "params", "params[].name", "params[].low",
              "params[].high"}
_IMAGE_KEYS = {"src", "size", "cell", "line", "origin"}
VIEW_KEYS = (
    {"phase", "family", "step", "budget_left", "invalid", "message", "grid", "forms", "text",
     "offered", "seq", "done", "waiting", "status", "error", "mfp", "cd", "planning"}
    | {f"forms[].{k}" for k in _FORM_KEYS} | {f"grid.{k}" for k in _IMAGE_KEYS}
    | {f"mfp.{k}" for k in ("watching", "frames", "masked_from", "mask", "action", "options",
                            "mask.x", "mask.y", "mask.width", "mask.height")}
    | {f"cd.{k}" for k in ("run", "run_steps", "declare_after", "declared", "frames",
                           "watching")}
    | {f"planning.{k}" for k in ("goal", "horizon", "goal_cells")}
    | {f"planning.goal.{k}" for k in _IMAGE_KEYS})
_HIDDEN_NAMES = re.compile(r"answer|correct|truth|solution|witness|hidden|program|trigger|"
                           r"condition|source|expected", re.I)
_SEPARATORS = (", ", " ", ",", "\n", "; ", " -> ", "|")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with serve_client(tmp_path_factory.mktemp("hidden") / "run") as client:
        yield client


def _program_needles(task) -> set[str]:
    """The CD task's modified program, whole, and each of its lines the world's own program
    lacks (at 8 characters or more: a line such as ``)`` says nothing)."""
    if getattr(task.hidden, "program", None) is None:
        return set()
    changed = changed_program_text(task.hidden.program)
    original = {line.strip() for line in world_spec(task.world).program_text().splitlines()}
    lines = {line.strip() for line in changed.splitlines()}
    return {changed.strip()} | {line for line in lines - original if len(line) >= 8}


def _hidden_lists(value) -> list[list]:
    """Every list of the hidden half (the witnesses) of 4 or more items."""
    if isinstance(value, dict):
        return [found for item in value.values() for found in _hidden_lists(item)]
    if isinstance(value, list):
        return [value] if len(value) >= 4 else []
    return []


def _walk(value, path=""):
    """(key path, value) of every node of parsed JSON."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, f"{path}[]")


def _holds_run(haystack: list, needle: list) -> bool:
    """Whether ``haystack`` holds ``needle`` whole, or a run of 4 or more of its items."""
    if haystack == needle:
        return True
    width = 4
    hay = [json.dumps(item, sort_keys=True) for item in haystack]
    pin = [json.dumps(item, sort_keys=True) for item in needle]
    runs = {tuple(pin[i:i + width]) for i in range(len(pin) - width + 1)}
    return any(tuple(hay[i:i + width]) in runs for i in range(len(hay) - width + 1))


def _search(responses: list[str], task) -> None:
    """Fail (``AssertionError`` naming the task and the form) if any response holds any part
    of ``task``'s hidden half in any form of the module docstring."""
    hidden = task.hidden.model_dump(mode="json")
    needles = hidden_needles(task) | _program_needles(task)
    lists = _hidden_lists(hidden)
    for items in lists:
        words = [str(i) for i in items]
        needles |= {sep.join(words) for sep in _SEPARATORS}
        needles |= {json.dumps(items), json.dumps(items, separators=(",", ":"))}
    assert needles, task.id
    answer = hidden.get("answer")
    in_context = (re.compile(rf"(answer|correct|truth|solution|right)\W{{0,12}}{answer}\b",
                             re.I) if isinstance(answer, int) else None)
    for text in responses:
        for form in (text, html.unescape(text)):
            for needle in needles:
                assert needle not in form, (task.id, "text", needle[:60])
            if in_context is not None:
                assert not in_context.search(form), (task.id, "answer in context")
        try:
            parsed = json.loads(text)
        except ValueError:
            continue   # a page: searched as text above
        for path, value in _walk(parsed):
            key = re.sub(r"(\[\])+$", "", path)
            assert not key or key in VIEW_KEYS, (task.id, "a key no view has", path)
            assert not _HIDDEN_NAMES.search(key.rsplit(".", 1)[-1]), (task.id, "key", path)
            if isinstance(value, str):
                for needle in needles:
                    assert needle not in value, (task.id, path, needle[:60])
            if isinstance(value, list):
                for items in lists:
                    assert not _holds_run(value, items), (task.id, "list", path)


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


def _leaky_play(client, monkeypatch, family: str, leak) -> list[str]:
    """A whole episode of gravity's ``family`` task whose every view has ``leak(view, task)``
    applied (a fault planted in the server), its responses."""
    import llm_eval.serve.live as live

    task = load_task("gravity", family)
    honest = live.page_view

    def leaky(observation):
        view = honest(observation)
        leak(view, task)
        return view

    monkeypatch.setattr(live, "page_view", leaky)
    p = Participant(client, "seeker")
    p.start("gravity", family)
    play_whole(p)
    return p.responses


def _in_payload(view: dict, key: str, value) -> None:
    part = next((view[k] for k in ("mfp", "cd", "planning") if k in view), view)
    part[key] = value


@pytest.mark.parametrize("family, leak", [
    # each a fault the search once missed, planted: the MFP answer index as a number, the
    # planning witness as a JSON list, the whole modified CD program (under "program", the
    # key the search used to skip); then the CD condition, as before
    ("mfp", lambda view, task: _in_payload(view, "answer", task.hidden.answer)),
    ("mfp", lambda view, task: view.update(message=f"(correct: {task.hidden.answer})")),
    ("mfp", lambda view, task: _in_payload(view, "pick", task.hidden.answer)),
    ("planning", lambda view, task: _in_payload(view, "hint", list(task.hidden.witness))),
    ("planning", lambda view, task: view["forms"].append(
        {"kind": "x", "form": "x", "help": "x", "params": list(task.hidden.witness)[2:8]})),
    ("cd", lambda view, task: _in_payload(view, "program",
                                          changed_program_text(task.hidden.program))),
    ("cd", lambda view, task: view.update(message="..." + changed_program_text(
        task.hidden.program)[-400:])),
    ("cd", lambda view, task: view.update(note=task.hidden.condition)),
], ids=["mfp-answer-key", "mfp-answer-in-text", "mfp-answer-other-key", "planning-list",
        "planning-run-in-list", "cd-program", "cd-program-tail", "cd-condition"])
def test_the_search_catches_each_planted_leak(client, monkeypatch, family, leak):
    """The search above can fail: each planted leak is caught."""
    responses = _leaky_play(client, monkeypatch, family, leak)
    with pytest.raises(AssertionError):
        _search(responses, load_task("gravity", family))
