"""The episode runner: one agent through the interaction phase, then the task's test.

``run_episode(task, agent)`` builds the interaction phase (the task's world, original program,
task seed), calls the agent's optional ``reset(EpisodeStart)`` hook, then asks
``agent.act(observation)`` for an action until the phase ends (``go-to-test``, or the budget),
then does the same with the family's test phase (``make_test_phase``). It returns an
``EpisodeResult``: the score (``max(0, raw)``), the raw reward, the record of every step (the
observation the agent acted on, its action, whether it was valid, the message), and the
behaviour measures of docs/spec/worldtest.md 7 that the phases can know: valid actions by kind, resets
and their share of the interaction actions, the action sequence of every run, rule coverage
during interaction and invalid actions.

``observer``, if given, is called as ``observer(kind, data)`` while the episode runs, so a
transcript can be written event by event: ``("phase_start", {"phase"})``, ``("observation",
{"phase", "index", "observation"})`` before each action (the ``Observation`` the agent gets),
``("action", {"record"})`` after it (the ``StepRecord``) and ``("phase_end", {"phase",
"stats", "reward"})``.

``protocol`` chooses the rules: ``worldtest`` (ours, docs/spec/worldtest.md) or ``autumnbench`` (the
published harness's, ``autumnbench`` package): there every action is a step, the interaction
budget is hidden, and one cap of 501 steps bounds the whole episode [C4] (a test that reaches it
scores 0). ``ticks_per_action`` (worldtest; default the task's, else 1) runs that many ticks
per interaction action and shows every intermediate frame. ``harness`` (autumnbench only: a
``AutumnBenchSettings``) gives the published harness's settings: image mode, frame stacking and
skipping, its own instruction texts; None is its defaults.

An agent ends the episode early by raising ``StopEpisode`` (a script that has run out): the
test is then scored as it stands, ``ended`` "stopped"; ``ContextExhausted`` (the model's
context is full) does the same with ``ended`` "context". ``EpisodeResult.ended`` says how the
episode ended: "context" or "stopped" when it was cut short so, else "".

Errors raised by the agent itself propagate (an agent's bug, or an infrastructure failure the
scheduler classifies); the world program's errors propagate as ``AutumnError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Literal

from ..tasks.models import CDTask, MFPTask, PlanningTask
from ..vocabulary import Ended, PhaseName
from .autumnbench.settings import AutumnBenchSettings
from .observation import EpisodeStart, Observation
from .phase import DEFAULT_MAX_CONSECUTIVE_INVALID, Phase
from .programs import ProgramsRoot, task_seed
from .protocols import PROTOCOLS
from .protocols import protocol as protocol_profile

if TYPE_CHECKING:  # the runner drives agents; agents import observations, not the runner
    from ..agents.base import Agent
    from .protocols import TestKind

__all__ = ["run_episode", "make_test_phase", "EpisodeResult", "StepRecord", "PhaseStats",
           "Observer", "StopEpisode", "ContextExhausted", "PROTOCOLS"]


class StopEpisode(Exception):
    """Raised by an agent's ``act`` to end the episode where it stands (module docstring);
    ``ended`` is what the phase it ends records as its end."""

    ended: ClassVar[Ended] = "stopped"


class ContextExhausted(StopEpisode):
    """Raised by a model's agent when the provider answers that the request no longer fits the
    model's context window: the episode ends there and its test is scored as it stands,
    ``ended`` "context" (the published harness scores such an episode too; an agent that runs
    out of context is not dropped from the mean)."""

    ended: ClassVar[Ended] = "context"

Observer = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One agent action: the observation it acted on, what it sent, and what came of it."""

    index: int
    phase: PhaseName
    observation: Observation
    action: str
    valid: bool
    message: str | None
    reward: float

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "phase": self.phase,
                "observation": self.observation.summary(), "action": self.action,
                "valid": self.valid, "message": self.message, "reward": self.reward}


@dataclass(frozen=True, slots=True)
class PhaseStats:
    """Counts of one phase: valid actions by keyword, invalid actions, and how it ended."""

    phase: PhaseName
    steps: int
    invalid_actions: int
    counts: tuple[tuple[str, int], ...]
    ended: Ended | Literal[""]   # "" when the phase did not end (the episode stopped before)

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "steps": self.steps,
                "invalid_actions": self.invalid_actions, "counts": dict(self.counts),
                "ended": self.ended}


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """The outcome of one episode (see the module docstring)."""

    task_id: str
    world: str
    family: str
    seed: int
    score: float
    raw_reward: float
    interaction: PhaseStats
    test: PhaseStats
    resets: int
    runs: tuple[tuple[str, ...], ...]
    coverage: tuple[int, int]
    records: tuple[StepRecord, ...]

    @property
    def invalid_actions(self) -> int:
        return self.interaction.invalid_actions + self.test.invalid_actions

    @property
    def ended(self) -> Ended | Literal[""]:
        """"context" or "stopped" when the agent cut the episode short (``StopEpisode``),
        else ""."""
        for phase in (self.interaction, self.test):
            if phase.ended in (ContextExhausted.ended, StopEpisode.ended):
                return phase.ended
        return ""

    @property
    def reset_share(self) -> float:
        """Resets as a share of the valid interaction actions (docs/spec/worldtest.md 7)."""
        return self.resets / self.interaction.steps if self.interaction.steps else 0.0

    def to_dict(self, *, steps: bool = True) -> dict[str, Any]:
        data = {"task": self.task_id, "world": self.world, "family": self.family,
                "seed": self.seed, "score": self.score, "raw_reward": self.raw_reward,
                "interaction": self.interaction.to_dict(), "test": self.test.to_dict(),
                "resets": self.resets, "reset_share": self.reset_share,
                "invalid_actions": self.invalid_actions,
                "coverage": {"covered": self.coverage[0], "total": self.coverage[1]},
                "runs": [list(r) for r in self.runs]}
        if self.ended:   # only then, so the results of episodes played out keep their shape
            data["ended"] = self.ended
        if steps:
            data["steps"] = [r.to_dict() for r in self.records]
        return data


def make_test_phase(task: MFPTask | CDTask | PlanningTask, *, background: str,
                    programs_root: ProgramsRoot | None = None,
                    max_consecutive_invalid: int = DEFAULT_MAX_CONSECUTIVE_INVALID,
                    protocol: str = "worldtest", cap: int | None = None,
                    autumnbench: AutumnBenchSettings | None = None) -> TestKind:
    """The test phase of ``task``'s family under ``protocol`` (not yet reset): its profile's
    (``protocols.Protocol.test_phase``)."""
    return protocol_profile(protocol).test_phase(
        task, background=background, programs_root=programs_root,
        max_consecutive_invalid=max_consecutive_invalid, cap=cap, autumnbench=autumnbench)


def _play(phase: Phase, agent: "Agent", records: list[StepRecord],
          observer: Observer | None = None, cap: int | None = None) -> float:
    """Drive ``agent`` through ``phase`` until it ends (or ``cap`` records exist, the
    autumnbench total cap); returns the last reward. ``StopEpisode`` from the agent ends the
    phase and propagates."""
    notify = observer or (lambda kind, data: None)
    notify("phase_start", {"phase": phase.name})
    observation = phase.reset()
    reward = 0.0
    while not phase.done:
        if cap is not None and len(records) >= cap:
            phase.stop(f"the episode reached its cap of {cap} steps")
            break
        notify("observation", {"phase": phase.name, "index": len(records),
                               "observation": observation})
        try:
            action = agent.act(observation)
        except StopEpisode as exc:
            phase.stop("the agent stopped the episode" if exc.ended == "stopped" else
                       f"the agent stopped the episode ({exc.ended}: {exc})")
            phase.ended = exc.ended
            notify("phase_end", {"phase": phase.name, "stats": _stats(phase), "reward": 0.0})
            raise
        shown = action if isinstance(action, str) else repr(action)
        next_observation, reward, _, _, info = phase.step(action)
        records.append(StepRecord(index=len(records), phase=phase.name,
                                  observation=observation, action=shown, valid=info["valid"],
                                  message=info.get("invalid_action"), reward=reward))
        notify("action", {"record": records[-1]})
        observation = next_observation
    notify("phase_end", {"phase": phase.name, "stats": _stats(phase), "reward": reward})
    return reward


def _stats(phase: Phase) -> PhaseStats:
    return PhaseStats(phase=phase.name, steps=phase.steps, invalid_actions=phase.invalid_actions,
                      counts=tuple(sorted(phase.counts.items())), ended=phase.ended or "")


def run_episode(task: MFPTask | CDTask | PlanningTask, agent: "Agent", *,
                interaction_steps: int | None = None,
                programs_root: ProgramsRoot | None = None,
                max_consecutive_invalid: int = DEFAULT_MAX_CONSECUTIVE_INVALID,
                observer: Observer | None = None, protocol: str = "worldtest",
                ticks_per_action: int | None = None,
                autumnbench: AutumnBenchSettings | None = None) -> EpisodeResult:
    """Play ``agent`` through the interaction phase and ``task``'s test (module docstring).

    ``interaction_steps`` overrides the task's interaction budget; ``programs_root`` the
    directory the CD modified program is read from; ``observer`` sees the episode's events.
    ``task`` must have a seed (``seeding.seeded`` gives a seedless imported task the run's).
    """
    profile = protocol_profile(protocol)
    budget = task.budgets.interaction_steps if interaction_steps is None else interaction_steps
    cap = profile.step_cap
    if autumnbench is not None and not profile.takes_autumnbench_settings:
        raise ValueError("the harness's settings (image mode, stack_frames, skip_frames, its "
                         "texts) belong to the autumnbench protocol")
    seed = task_seed(task)
    interaction = profile.interaction_phase(task, budget=budget,
                                            max_consecutive_invalid=max_consecutive_invalid,
                                            ticks_per_action=ticks_per_action,
                                            autumnbench=autumnbench)
    hook = getattr(agent, "reset", None)
    if callable(hook):
        hook(EpisodeStart(interaction_steps=budget, protocol=profile.name))
    records: list[StepRecord] = []
    test: TestKind | None = None
    try:
        _play(interaction, agent, records, observer, cap)
        background = interaction.world.frame.background
        test = make_test_phase(task, background=background, programs_root=programs_root,
                               max_consecutive_invalid=max_consecutive_invalid,
                               protocol=protocol, autumnbench=autumnbench,
                               cap=None if cap is None else max(1, cap - len(records)))
        _play(test, agent, records, observer, cap)
    except StopEpisode as exc:
        if test is None:
            test = make_test_phase(task, background=interaction.world.frame.background,
                                   programs_root=programs_root, protocol=protocol,
                                   autumnbench=autumnbench,
                                   max_consecutive_invalid=max_consecutive_invalid,
                                   cap=None if cap is None else max(1, cap - len(records)))
            test.ended = exc.ended
    raw = getattr(test, "raw_reward", None)
    raw = test.score if raw is None else raw
    return EpisodeResult(
        task_id=task.id, world=task.world, family=task.family, seed=seed,
        score=max(0.0, raw), raw_reward=raw, interaction=_stats(interaction),
        test=_stats(test), resets=interaction.resets,
        runs=tuple(tuple(r) for r in interaction.runs), coverage=interaction.coverage,
        records=tuple(records))
