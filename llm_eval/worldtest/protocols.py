"""The protocols an episode can be played under, one profile object each.

- ``worldtest`` (the default): docs/spec/worldtest.md, the phases of this package.
- ``autumnbench``: the published AutumnBench harness's rules, step for step
  (docs/spec/autumnbench-harness.md, the phases of ``worldtest.autumnbench``).

A ``Protocol`` owns what differs between them: its phases, the cap on an episode's steps, the
prompt and tool mode a model gets by default, the settings it accepts (ticks per action, the
harness's own settings, tool modes and agent tools) and its seed rule. The runner, the sweep
spec, the episode command and the agents ask the profile (``protocol(name)``); none compares
protocol names. Importing this module imports no phase: the phases are loaded when a profile
builds one, so the sweep's spec can read a profile cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from ..vocabulary import ProtocolName

if TYPE_CHECKING:
    from ..tasks.models import CDTask, MFPTask, PlanningTask
    from .autumnbench import (
        AutumnBenchCD,
        AutumnBenchInteraction,
        AutumnBenchMFP,
        AutumnBenchPlanning,
    )
    from .autumnbench.settings import AutumnBenchSettings
    from .cd import CDPhase
    from .interaction import InteractionPhase
    from .mfp import MFPPhase
    from .planning import PlanningPhase
    from .programs import ProgramsRoot

    Task = MFPTask | CDTask | PlanningTask
    #: the phases a profile builds: an interaction (the world played freely, its resets and
    #: runs) and a test (scored)
    InteractionKind: TypeAlias = InteractionPhase | AutumnBenchInteraction
    TestKind: TypeAlias = (MFPPhase | CDPhase | PlanningPhase | AutumnBenchMFP | AutumnBenchCD
                           | AutumnBenchPlanning)

__all__ = ["Protocol", "ProtocolName", "PROTOCOLS", "WORLDTEST", "AUTUMNBENCH", "protocol",
           "AUTUMNBENCH_STEP_CAP"]



@dataclass(frozen=True)
class Protocol:
    """One protocol's profile (module docstring)."""

    name: ProtocolName
    #: interaction and test together take at most this many steps (None: each phase's budget)
    step_cap: int | None
    #: the prompt variant and tool mode a model plays with unless told otherwise
    default_prompt: str
    default_tool_mode: str
    #: tool modes that cannot play it, with why
    refused_tool_modes: tuple[tuple[str, str], ...]
    #: agent tools it has no use for, with why
    refused_agent_tools: tuple[tuple[str, str], ...]
    #: a seed of 0 (mod 2**32) is accepted (with a warning) rather than refused
    accepts_degenerate_seed: bool
    #: ``ticks_per_action`` may be set (else the program's own rate is played)
    takes_ticks_per_action: bool
    #: the published harness's settings (image mode, stack_frames, skip_frames, its texts)
    takes_autumnbench_settings: bool
    #: observations carry the harness's text, which the agent is shown as it is
    shows_harness_text: bool

    def refusal_of_tool_mode(self, mode: str) -> str | None:
        return dict(self.refused_tool_modes).get(mode)

    def refusal_of_agent_tool(self, tool: str) -> str | None:
        return dict(self.refused_agent_tools).get(tool)

    def interaction_phase(self, task: Task, *, budget: int, max_consecutive_invalid: int,
                          ticks_per_action: int | None,
                          autumnbench: AutumnBenchSettings | None) -> InteractionKind:
        """The interaction phase of ``task`` (not yet reset)."""
        from .programs import original_world

        if self.takes_autumnbench_settings:
            from .autumnbench import AutumnBenchInteraction
            from .autumnbench.settings import DEFAULT_SETTINGS

            return AutumnBenchInteraction(original_world(task), budget=budget,
                                      settings=autumnbench or DEFAULT_SETTINGS)
        from .interaction import InteractionPhase

        ticks = ticks_per_action or task.ticks_per_action or 1
        return InteractionPhase(original_world(task), budget=budget,
                                max_consecutive_invalid=max_consecutive_invalid,
                                ticks_per_action=ticks)

    def test_phase(self, task: Task, *, background: str, programs_root: ProgramsRoot | None,
                   max_consecutive_invalid: int, cap: int | None,
                   autumnbench: AutumnBenchSettings | None) -> TestKind:
        """The test phase of ``task``'s family (not yet reset). ``background`` is the world's
        background colour (the MFP recording's frames); ``cap`` the steps the test may take
        under a protocol with a step cap (its whole cap when None)."""
        from .programs import modified_world, original_world

        if self.takes_autumnbench_settings:
            budget = self.step_cap if cap is None else cap
            if budget is None:   # a harness protocol has a step cap
                raise ValueError(f"protocol {self.name}: a harness test needs a step cap")
            return _autumnbench_test(task, background, programs_root, budget, autumnbench)
        limit = max_consecutive_invalid
        match task.family:
            case "mfp":
                from .mfp import MFPPhase

                return MFPPhase(task.public, answer=task.hidden.answer, background=background,
                                budget=task.budgets.test_steps, max_consecutive_invalid=limit)
            case "cd":
                from .cd import CDPhase

                return CDPhase(modified_world(task, programs_root),
                               condition=task.hidden.condition, budget=task.budgets.test_steps,
                               declare_after=task.public.min_steps_before_declare,
                               max_consecutive_invalid=limit)
            case "planning":
                from .planning import PlanningPhase

                horizon = task.public.horizon or task.budgets.test_steps
                return PlanningPhase(original_world(task), goal=task.public.goal,
                                     mask=task.public.mask, horizon=horizon,
                                     max_consecutive_invalid=limit)
        raise ValueError(f"unknown task family {task.family!r}")


def _autumnbench_test(task: Task, background: str, programs_root: ProgramsRoot | None, cap: int,
                  autumnbench: AutumnBenchSettings | None) -> TestKind:
    from .autumnbench import AutumnBenchCD, AutumnBenchMFP, AutumnBenchPlanning
    from .autumnbench.settings import DEFAULT_SETTINGS
    from .programs import modified_world, original_world

    settings = autumnbench or DEFAULT_SETTINGS
    match task.family:
        case "mfp":
            return AutumnBenchMFP(task.public, answer=task.hidden.answer, background=background,
                              budget=cap, settings=settings)
        case "cd":
            return AutumnBenchCD(modified_world(task, programs_root),
                             condition=task.hidden.condition, budget=cap, settings=settings)
        case "planning":
            return AutumnBenchPlanning(original_world(task), goal=task.public.goal,
                                   mask=task.public.mask, budget=cap, settings=settings)
    raise ValueError(f"unknown task family {task.family!r}")


#: Under autumnbench, interaction and test together take at most this many steps [C4].
AUTUMNBENCH_STEP_CAP = 501

WORLDTEST = Protocol(
    name="worldtest", step_cap=None, default_prompt="default", default_tool_mode="tools",
    refused_tool_modes=(), refused_agent_tools=(), accepts_degenerate_seed=False,
    takes_ticks_per_action=True, takes_autumnbench_settings=False, shows_harness_text=False)

AUTUMNBENCH = Protocol(
    name="autumnbench", step_cap=AUTUMNBENCH_STEP_CAP, default_prompt="autumnbench",
    default_tool_mode="tags",
    refused_tool_modes=(("tools", "its actions are strings such as 'I found the change!': "
                                  "use tags or text"),),
    refused_agent_tools=(("autumn", "the autumn tool checks a program against the worldtest "
                                    "protocol's frames; under protocol autumnbench use notes "
                                    "or python"),),
    accepts_degenerate_seed=True, takes_ticks_per_action=False, takes_autumnbench_settings=True,
    shows_harness_text=True)

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (WORLDTEST, AUTUMNBENCH)}


def protocol(name: str) -> Protocol:
    """The profile of the protocol ``name``; a ``ValueError`` names the known ones."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}: expected one of "
                         f"{', '.join(PROTOCOLS)}") from None
