"""The ``autumnbench`` protocol: the published AutumnBench harness's phases, step for step.

docs/spec/autumnbench-harness.md describes what the harness does; each phase here cites the rules it
implements ([I1] ... [P7]). The phases use the same machinery as the worldtest ones (``Phase``,
the runner, observations, transcripts) with the harness's rules (``base``). The runner
(``llm_eval.worldtest.episode``) adds the composite's rules: the interaction budget counts every
step and the test's first observation answers the switching step [C3], and one cap of
``TOTAL_STEP_CAP`` steps bounds interaction and test together [C4].
"""

from ..protocols import AUTUMNBENCH_STEP_CAP
from .base import HarnessPhase, HarnessRaise, grid_json, parse_game_action
from .cd import HarnessCD
from .interaction import HarnessInteraction
from .mfp import HarnessMFP
from .planning import HarnessPlanning

__all__ = ["HarnessPhase", "HarnessRaise", "HarnessInteraction", "HarnessMFP", "HarnessCD",
           "HarnessPlanning", "grid_json", "parse_game_action", "TOTAL_STEP_CAP"]

#: Interaction and test together take at most this many steps [C4] (the protocol's profile).
TOTAL_STEP_CAP = AUTUMNBENCH_STEP_CAP
