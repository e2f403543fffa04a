"""Whole episodes: interaction then test, with the random and the oracle agent, on tasks built
from the warehouse world; what the result records; nothing hidden ever reaches an agent."""

from __future__ import annotations

import json

import pytest
import worldtest_tasks as W
from tiers import per_task

from llm_eval.agents import OracleAgent, RandomAgent
from llm_eval.worldtest import Observation, TaskProgramError, run_episode


class Recorder:
    """Wraps an agent and keeps every observation it is given."""

    def __init__(self, inner):
        self.inner = inner
        self.seen: list[Observation] = []
        self.started = None

    def reset(self, start):
        self.started = start
        getattr(self.inner, "reset", lambda s: None)(start)

    def act(self, observation):
        self.seen.append(observation)
        return self.inner.act(observation)


class Scripted:
    def __init__(self, actions):
        self.actions = list(actions)

    def act(self, observation):
        return self.actions.pop(0)


@pytest.fixture
def root(tmp_path):
    return W.write_cd_program(tmp_path)


def tasks(root):
    return [(W.mfp_task(), None), (W.cd_task(), root), (W.planning_task(), None)]


@pytest.mark.parametrize("family", ["mfp", "cd", "planning"])
def test_oracle_scores_one(family, root):
    task, programs = dict(zip(["mfp", "cd", "planning"], tasks(root)))[family]
    agent = OracleAgent(task, programs_root=programs)
    result = run_episode(task, agent, programs_root=programs)
    assert result.score == 1.0 and result.raw_reward == 1.0, agent.notes
    assert result.interaction.counts == (("go-to-test", 1),)
    assert result.interaction.ended == "terminated" and result.test.ended == "terminated"
    assert result.invalid_actions == 0
    assert result.records[0].phase == "interaction" and result.records[-1].phase == family


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("family", ["mfp", "cd", "planning"])
def test_random_agent_plays_every_phase_to_its_end(family, seed, root):
    task, programs = dict(zip(["mfp", "cd", "planning"], tasks(root)))[family]
    result = run_episode(task, RandomAgent(seed=seed), programs_root=programs)
    assert result.family == family and result.invalid_actions == 0
    assert 0.0 <= result.score <= 1.0 and result.score == max(0.0, result.raw_reward)
    assert result.test.ended in ("terminated", "truncated")
    assert len(result.records) == result.interaction.steps + result.test.steps
    if family == "cd":   # a false alarm, no submission, or a positive reward of the formula
        raw = result.raw_reward
        assert raw in (-1.0, 0.0) or 0.19 < raw <= 1.0
    else:
        assert result.raw_reward in (0.0, 1.0)


def test_random_agent_scores_near_chance_on_mfp():
    task = W.mfp_task()
    scores = [run_episode(task, RandomAgent(seed=s), interaction_steps=3).score
              for s in range(1, 121)]
    assert 0.07 < sum(scores) / len(scores) < 0.3


def test_result_records_behaviour():
    task = W.planning_task()
    agent = Scripted(["down", "bogus", "reset", "right", "click 1 1", "go-to-test",
                      "down", "right", "right"])
    result = run_episode(task, agent)
    assert result.score == 1.0
    assert dict(result.interaction.counts) == {"down": 1, "reset": 1, "right": 1, "click": 1,
                                               "go-to-test": 1}
    assert result.interaction.invalid_actions == 1 and result.invalid_actions == 1
    assert result.resets == 1 and result.reset_share == pytest.approx(1 / 5)
    assert result.runs == (("down",), ("right", "click 1 1"))
    assert result.coverage[0] > 0 and result.coverage[1] >= result.coverage[0]
    bad = result.records[1]
    assert not bad.valid and "unknown action 'bogus'" in bad.message
    assert result.records[2].observation.invalid == bad.message
    data = result.to_dict()
    json.dumps(data)
    assert data["steps"][1]["valid"] is False and data["test"]["counts"]["right"] == 2


def test_interaction_budget_moves_to_the_test():
    task = W.mfp_task()
    agent = Scripted(["noop"] * 4 + ["choose 2"])
    result = run_episode(task, agent, interaction_steps=4)
    assert result.interaction.ended == "truncated" and result.interaction.steps == 4
    assert result.score == 1.0


def test_agent_that_only_answers_nonsense_ends_with_score_zero():
    class Nonsense:
        def act(self, observation):
            return 42

    result = run_episode(W.planning_task(), Nonsense(), max_consecutive_invalid=5)
    assert result.score == 0.0 and result.invalid_actions == 10
    assert result.interaction.ended == "truncated" and result.test.ended == "truncated"


@pytest.mark.parametrize("full_at", [2, 6])   # in the interaction phase; in the test
def test_a_full_context_ends_the_episode_scored_as_it_stands(full_at):
    from llm_eval.worldtest.episode import ContextExhausted

    class Full:
        def __init__(self):
            self.actions = ["noop", "noop", "go-to-test", "noop", "noop", "noop"]

        def act(self, observation):
            if not self.actions or len(self.actions) == 6 - full_at:
                raise ContextExhausted("maximum context length exceeded")
            return self.actions.pop(0)

    result = run_episode(W.planning_task(), Full())
    assert result.ended == "context" and result.score == 0.0
    phase = result.interaction if full_at < 3 else result.test
    assert phase.ended == "context" and result.to_dict()["ended"] == "context"
    assert len(result.records) == full_at
    played_out = run_episode(W.planning_task(), Scripted(["go-to-test"] + ["noop"] * 99))
    assert played_out.ended == "" and "ended" not in played_out.to_dict()


def test_agent_hook_gets_the_budget_only():
    agent = Recorder(Scripted(["go-to-test", "quit"]))
    run_episode(W.planning_task(), agent, interaction_steps=7)
    assert agent.started.interaction_steps == 7 and not hasattr(agent.started, "family")


@pytest.mark.parametrize("make", [W.mfp_task, W.cd_task, W.planning_task])
def test_the_interaction_phase_never_reveals_the_test_family(make):
    task = make()
    # four interaction steps, then whatever ends the test quickly
    test_actions = {"mfp": ["choose 0"], "planning": ["quit"],
                    "cd": ["noop", "noop", "noop", "declare", "submit 1"]}[task.family]
    agent = Recorder(Scripted(["noop", "right", "noop", "go-to-test"] + test_actions))
    run_episode(task, agent, interaction_steps=10)
    interaction = [o for o in agent.seen if o.phase == "interaction"]
    assert len(interaction) == 4
    for obs in interaction:
        text = json.dumps(obs.to_dict())
        assert obs.family is None and task.family not in text


def _hidden_texts(task, root) -> list[str]:
    texts = []
    hidden = task.hidden.model_dump()
    if task.family == "mfp":
        texts += [s for s in hidden["option_sources"] if s != "truth"] + ["truth"]
        texts.append("recoloured")
    if task.family == "cd":
        texts += [hidden["trigger"], hidden["change"], hidden["program"], "changes/",
                  "SpecialConditionTriggered", "pushes",
                  W.CHANGED_LEFT_RULE.splitlines()[1].strip()]
    if "witness" in hidden:
        texts.append(json.dumps(hidden["witness"]))
        texts.append(", ".join(hidden["witness"]))
    return texts


@pytest.mark.parametrize("family", ["mfp", "cd", "planning"])
@pytest.mark.parametrize("make", [lambda t, r: OracleAgent(t, programs_root=r),
                                  lambda t, r: RandomAgent(seed=5)], ids=["oracle", "random"])
def test_observations_never_contain_hidden_data(family, make, root):
    task, programs = dict(zip(["mfp", "cd", "planning"], tasks(root)))[family]
    agent = Recorder(make(task, programs))
    run_episode(task, agent, programs_root=programs)
    assert agent.seen
    blob = json.dumps([o.to_dict() for o in agent.seen]) + repr(agent.seen)
    for text in _hidden_texts(task, root):
        assert text not in blob, text
    if family == "mfp":
        for obs in agent.seen:
            if obs.phase == "mfp":
                final = obs.mfp.frames[-1]
                assert all(final.grid[y][x] == "transparent" for x, y in
                           [(3, 1), (4, 1), (3, 2), (4, 2)])


def test_missing_or_escaping_program_paths_are_task_errors(tmp_path):
    with pytest.raises(TaskProgramError, match="warehouse-cd-test.*changes/warehouse.sexp"):
        run_episode(W.cd_task(), Scripted(["go-to-test"]), programs_root=tmp_path)
    with pytest.raises(TaskProgramError, match="without '..'"):
        run_episode(W.cd_task(program="../warehouse.sexp"), Scripted(["go-to-test"]))


def _shipped():
    from llm_eval.tasks.store import all_tasks
    return all_tasks()


@pytest.mark.parametrize("task", per_task(_shipped()))
def test_shipped_tasks_leak_nothing_hidden(task):
    agent = Recorder(RandomAgent(seed=11))
    run_episode(task, agent, interaction_steps=10)
    blob = json.dumps([o.to_dict() for o in agent.seen])
    hidden = task.hidden.model_dump()
    texts = {"mfp": lambda: list(hidden["option_sources"]),
             "cd": lambda: [hidden["trigger"], hidden["condition"], hidden["change"],
                            hidden["program"], "SpecialConditionTriggered"],
             "planning": lambda: []}[task.family]()
    if "witness" in hidden and len(hidden["witness"]) > 2:
        texts.append(json.dumps(hidden["witness"]))
    for text in texts:
        assert text not in blob, text
