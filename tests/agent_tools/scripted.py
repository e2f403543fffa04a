"""A scripted model for the agent-tools tests: the reference run (explore, go to the test,
then the oracle's answers) with tool calls put in where the test says."""

from __future__ import annotations

import functools

from llm_eval.agents import OracleAgent
from llm_eval.tasks.store import load_task
from llm_eval.worldtest import run_episode
from llm_eval.worldtest.programs import original_world

ARGS = {"click": ("x", "y"), "watch": ("t",), "submit": ("t",), "choose": ("k",)}
WORLD, FAMILY = "hunters", "mfp"
EXPLORE = ("left", "click 3 4", "down", "reset", "up", "noop", "right")


class ReferenceAgent:
    """Explore (``EXPLORE``), go to the test, then play as the oracle."""

    def __init__(self, task) -> None:
        self.oracle = OracleAgent(task)
        self.explore = list(EXPLORE)

    def reset(self, start) -> None:
        self.oracle.reset(start)
        self.explore = list(EXPLORE)

    def act(self, observation) -> str:
        if observation.phase == "interaction":
            return self.explore.pop(0) if self.explore else "go-to-test"
        return self.oracle.act(observation)


@functools.cache
def reference(world: str = WORLD, family: str = FAMILY) -> tuple[str, ...]:
    task = load_task(world, family)
    return tuple(r.action for r in run_episode(task, ReferenceAgent(task)).records)


def true_program(world: str = WORLD, family: str = FAMILY) -> str:
    return original_world(load_task(world, family)).program


def action_call(action: str) -> tuple[str, dict]:
    kind, *values = action.split()
    return kind.replace("-", "_"), dict(zip(ARGS.get(kind, ()), map(int, values)))
