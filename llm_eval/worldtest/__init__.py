"""WorldTest phases (docs/spec/worldtest.md): the interaction phase and the three test families, each an
environment with its own action set, plus scoring and the episode runner.

``run_episode(task, agent)`` plays an agent through interaction and test and returns an
``EpisodeResult``; the phases can also be driven directly (``reset()`` then ``step(text)``).
The action grammar of every phase is in ``commands``, the definition of the change-detection
frame T in ``scoring``.
"""

from ..lazy import lazy_exports

_EXPORTS = {
    "CDPhase": ".cd", "ActionForm": ".commands", "Command": ".commands", "Param": ".commands",
    "parse_command": ".commands", "world_forms": ".commands", "EpisodeResult": ".episode",
    "PhaseStats": ".episode", "StepRecord": ".episode", "make_test_phase": ".episode",
    "run_episode": ".episode", "PhaseStateError": ".errors", "TaskProgramError": ".errors",
    "WorldTestError": ".errors", "DEFAULT_INTERACTION_STEPS": ".interaction",
    "InteractionPhase": ".interaction", "OPTION_COUNT": ".mfp", "MFPPhase": ".mfp",
    "masked_frames": ".mfp", "MASK_COLOUR": ".observation", "PHASES": ".observation",
    "CDView": ".observation", "EpisodeStart": ".observation", "MFPView": ".observation",
    "Observation": ".observation", "PlanningView": ".observation",
    "DEFAULT_MAX_CONSECUTIVE_INVALID": ".phase", "Phase": ".phase",
    "PlanningPhase": ".planning", "goal_cells": ".planning", "goal_reached": ".planning",
    "modified_program_text": ".programs", "modified_world": ".programs",
    "original_world": ".programs", "NOT_SUBMITTED": ".scoring", "aggregate_score": ".scoring",
    "cd_raw_reward": ".scoring",
}

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

# each name is imported from its module when first used (``llm_eval.lazy``)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
