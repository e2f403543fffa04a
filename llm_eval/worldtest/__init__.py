"""WorldTest phases (WORLDTEST.md): the interaction phase and the three test families, each an
environment with its own action set, plus scoring and the episode runner.

``run_episode(task, agent)`` plays an agent through interaction and test and returns an
``EpisodeResult``; the phases can also be driven directly (``reset()`` then ``step(text)``).
The action grammar of every phase is in ``commands``, the definition of the change-detection
frame T in ``scoring``.
"""

from .cd import CDPhase
from .commands import ActionForm, Command, Param, parse_command, world_forms
from .episode import EpisodeResult, PhaseStats, StepRecord, make_test_phase, run_episode
from .errors import PhaseStateError, TaskProgramError, WorldTestError
from .interaction import DEFAULT_INTERACTION_STEPS, InteractionPhase
from .mfp import OPTION_COUNT, MFPPhase, masked_frames
from .observation import (MASK_COLOUR, PHASES, CDView, EpisodeStart, MFPView, Observation,
                          PlanningView)
from .phase import DEFAULT_MAX_CONSECUTIVE_INVALID, Phase
from .planning import PlanningPhase, goal_cells, goal_reached
from .programs import modified_program_text, modified_world, original_world
from .scoring import NOT_SUBMITTED, aggregate_score, cd_raw_reward

__all__ = [
    "Phase", "InteractionPhase", "MFPPhase", "CDPhase", "PlanningPhase", "make_test_phase",
    "Observation", "MFPView", "CDView", "PlanningView", "EpisodeStart", "MASK_COLOUR", "PHASES",
    "ActionForm", "Param", "Command", "parse_command", "world_forms",
    "run_episode", "EpisodeResult", "StepRecord", "PhaseStats",
    "cd_raw_reward", "aggregate_score", "NOT_SUBMITTED",
    "original_world", "modified_world", "modified_program_text", "masked_frames",
    "goal_reached", "goal_cells", "OPTION_COUNT",
    "DEFAULT_INTERACTION_STEPS", "DEFAULT_MAX_CONSECUTIVE_INVALID",
    "WorldTestError", "PhaseStateError", "TaskProgramError",
]
