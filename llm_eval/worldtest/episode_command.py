"""The ``llm-eval episode`` command: play one episode of a shipped task and print the score.

``llm-eval episode WORLD --family mfp|cd|planning --agent random|oracle [--seed S] [--json]
[--interaction-steps N] [--steps]`` loads the shipped task ``<WORLD>-<family>``
(``llm_eval.tasks.store``), plays the agent through the interaction phase and the test, and
prints one line: the score (``max(0, raw)``), the raw reward and the action counts. ``--seed``
seeds the random agent (the world's seed is the task's). ``--json`` prints the episode result
as JSON instead (``--steps`` adds every step's record).
"""

from __future__ import annotations

import argparse
import json

from ..tasks.models import FAMILIES

__all__ = ["add_episode_parser", "cmd_episode", "format_result"]

AGENTS = ("random", "oracle")


def format_result(result, agent: str, seed: int) -> str:
    """The one-line summary of an episode."""
    inter, test = result.interaction, result.test
    return (f"{result.task_id}: agent {agent} (seed {seed}): score {result.score:.3f} "
            f"(raw {result.raw_reward:+.3f}); interaction {inter.steps} actions, "
            f"{result.resets} resets, {inter.invalid_actions} invalid, ended {inter.ended}; "
            f"test {test.steps} actions, {test.invalid_actions} invalid, ended {test.ended}")


def cmd_episode(args: argparse.Namespace) -> int:
    from ..agents import make_agent
    from ..tasks.store import load_task
    from ..worlds import world_spec
    from .episode import run_episode

    world_spec(args.world)          # an unknown name raises UnknownWorldError with "did you mean"
    task = load_task(args.world, args.family)
    agent = make_agent(args.agent, task, seed=args.seed)
    result = run_episode(task, agent, interaction_steps=args.interaction_steps)
    if args.json:
        data = result.to_dict(steps=args.steps)
        data["agent"] = args.agent
        data["agent_seed"] = args.seed
        print(json.dumps(data, indent=1))
    else:
        print(format_result(result, args.agent, args.seed))
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def add_episode_parser(commands) -> argparse.ArgumentParser:
    """Add ``episode`` to the ``llm-eval`` subcommands."""
    episode = commands.add_parser(
        "episode", help="play one episode of a shipped task with a reference agent",
        description="Play AGENT through the interaction phase and the test of the shipped "
                    "task WORLD x FAMILY, then print the score (max(0, raw reward)), the raw "
                    "reward and the action counts.")
    episode.add_argument("world", metavar="WORLD", help="a bundled world's name")
    episode.add_argument("--family", required=True, choices=FAMILIES,
                         help="the test family: mfp, cd or planning")
    episode.add_argument("--agent", required=True, choices=AGENTS,
                         help="random (chance baseline) or oracle (knows the program)")
    episode.add_argument("--seed", type=_integer, default=1,
                         help="seed of the random agent (default 1; the world uses the "
                              "task's seed)")
    episode.add_argument("--interaction-steps", type=_positive, default=None, metavar="N",
                         help="interaction budget (default: the task's, 200)")
    episode.add_argument("--json", action="store_true",
                         help="print the episode result as JSON")
    episode.add_argument("--steps", action="store_true",
                         help="with --json: include the record of every step")
    episode.set_defaults(handler=cmd_episode)
    return episode
