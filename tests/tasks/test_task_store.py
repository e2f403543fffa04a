"""Task files: the shipped set, round trips through the pydantic models, errors that name the
file and field, and that nothing of the hidden half reaches what an agent is shown."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from llm_eval.tasks import (
    FAMILIES,
    TaskFileError,
    all_tasks,
    dump_task,
    load_task,
    load_task_file,
    parse_task,
)
from llm_eval.tasks.store import shipped_task_ids
from llm_eval.worlds import world_names

TASKS = all_tasks()


def test_ship_every_world_times_every_family():
    expected = {f"{w}-{f}" for w in world_names() for f in FAMILIES}
    assert set(shipped_task_ids()) == expected
    # suite v1 is every shipped task (tests/suites checks its digests): none went missing
    from llm_eval.suites import load_suite

    assert len(TASKS) == len(expected) == len(load_suite("v1").tasks)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_round_trip(task):
    assert parse_task(dump_task(task), source="x") == task
    assert parse_task(json.loads(dump_task(task))) == task
    assert task.seed % 2 ** 32 != 0


def _hidden_strings(task) -> list[str]:
    """Every hidden value an agent must never see, as text."""
    h = task.hidden
    match task.family:
        case "mfp":
            return list(h.option_sources)
        case "planning":
            return [", ".join(h.witness), json.dumps(h.witness)]
        case "cd":
            return [h.program, h.trigger, h.change, json.dumps(h.witness),
                    ", ".join(h.witness), h.program.rsplit("/", 1)[-1]]
    raise AssertionError(task.family)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_agent_view_leaks_nothing_hidden(task):
    view = task.agent_view()
    text = json.dumps(view)
    assert "hidden" not in view and set(view) == {"family", "budgets", "public"}
    for word in ("answer", "witness", "option_sources", "trigger", "program"):
        assert f'"{word}"' not in text
    for secret in _hidden_strings(task):
        assert secret and secret not in text, secret
    assert '"world"' not in text and '"seed"' not in text
    if task.family == "cd":
        from llm_eval.tasks.trajectory import changed_program_text
        assert "SpecialConditionTriggered" not in text
        assert changed_program_text(task.hidden.program)[:200] not in text


def test_mfp_answer_position_is_not_fixed():
    """The answer's position is drawn from each task's seed: the counts per position must fit a
    uniform draw (chi-square, 5 degrees of freedom, below the p = 0.01 critical value 15.09), so
    an agent that always names one position does no better than chance."""
    tasks = [t for t in TASKS if t.family == "mfp"]
    assert {len(t.public.options) for t in tasks} == {6}
    answers = Counter(t.hidden.answer for t in tasks)
    expected = len(tasks) / 6
    chi_square = sum((answers.get(i, 0) - expected) ** 2 / expected for i in range(6))
    assert len(answers) == 6 and chi_square < 15.09, answers


def test_load_task_names_the_file_and_field(tmp_path):
    good = load_task("easel", "planning")
    data = json.loads(dump_task(good))
    data["public"]["horizon"] = 0
    path = tmp_path / "easel-planning.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TaskFileError, match=r"easel-planning\.json: (planning\.)?public\.horizon"):
        load_task_file(path)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(seed=0), r"seed"),
    (lambda d: d.update(seed=2 ** 32), r"seed"),
    (lambda d: d.update(schema_version=2), r"schema_version"),
    (lambda d: d.update(family="chess"), r"easel-planning\.json"),
    (lambda d: d["public"]["mask"][0].append(True), r"mask and goal"),
    (lambda d: d.update(extra=1), r"extra"),
])
def test_invalid_task_files(tmp_path, mutate, message):
    data = json.loads(dump_task(load_task("easel", "planning")))
    mutate(data)
    path = tmp_path / "easel-planning.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TaskFileError, match=message):
        load_task_file(path)


def test_not_json_and_wrong_id(tmp_path):
    bad = tmp_path / "easel-mfp.json"
    bad.write_text("{ nope")
    with pytest.raises(TaskFileError, match=r"easel-mfp\.json: line 1 column 3: not valid JSON"):
        load_task_file(bad)
    renamed = tmp_path / "gravity-planning.json"
    renamed.write_text(dump_task(load_task("easel", "planning")))
    with pytest.raises(TaskFileError, match=r"gravity-planning\.json: id: 'easel-planning'"):
        load_task_file(renamed)
    with pytest.raises(TaskFileError, match=r"cannot read"):
        load_task_file(tmp_path / "missing-cd.json")


def test_unknown_shipped_task():
    with pytest.raises(TaskFileError, match=r"no shipped task 'nowhere-mfp'"):
        load_task("nowhere", "mfp")
    with pytest.raises(TaskFileError, match=r"unknown task family 'chess'"):
        load_task("easel", "chess")


def test_mfp_shape_errors():
    data = json.loads(dump_task(load_task("easel", "mfp")))
    data["public"]["options"][2] = [["red"]]
    with pytest.raises(TaskFileError, match=r"option 2 is not"):
        parse_task(data, source="t.json")
    data = json.loads(dump_task(load_task("easel", "mfp")))
    data["public"]["frames"][0][0][0] = None
    with pytest.raises(TaskFileError, match=r"frame 0: the hidden cells"):
        parse_task(data, source="t.json")


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), exactly."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1))


def centre_is_chance(hits: float, n: int, level: float = 0.05) -> bool:
    """Whether ``hits`` of ``n`` tasks with the truth at the centre of their 6 options is what
    chance (1 in 6) gives at least ``level`` of the time: the one-sided exact binomial test
    (a tie split between options counts its share, rounded up)."""
    return binomial_tail(math.ceil(hits - 1e-9), n, 1 / 6) >= level


def test_the_centre_bound_is_as_tight_as_the_suites_size_allows():
    """With the shipped suite's 43 MFP tasks, a 5% one-sided test accepts at most 11 (25.6%;
    chance 16.7%, one standard deviation 5.7 points): a generator that puts the truth at the
    centre a third of the time still passes 18% of the time, which is what 43 tasks can
    tell. The old bound, chance + 2.5 standard deviations, accepted 13 (30.9%, p = 0.02)."""
    assert centre_is_chance(8, 43) and centre_is_chance(11, 43)
    assert not centre_is_chance(12, 43) and not centre_is_chance(13, 43)
    assert binomial_tail(12, 43, 1 / 6) == pytest.approx(0.0445, abs=1e-4)


def test_truth_is_not_the_option_closest_to_all_others():
    """Distractors made by editing the truth would make it the centre of the options; the
    generator avoids that, so this heuristic does no better than chance (1 in 6) by a 5%
    one-sided exact binomial test over the shipped MFP tasks (``centre_is_chance``)."""
    def distance(a, b):
        return sum(x != y for ra, rb in zip(a, b) for x, y in zip(ra, rb))

    hits = 0.0
    for task in (t for t in TASKS if t.family == "mfp"):
        totals = [sum(distance(a, b) for b in task.public.options) for a in task.public.options]
        centre = [i for i, v in enumerate(totals) if v == min(totals)]
        hits += (task.hidden.answer in centre) / len(centre)
    n = sum(t.family == "mfp" for t in TASKS)
    assert centre_is_chance(hits, n), (hits, n)