"""The ``autumnbench`` protocol: the published AutumnBench harness's phases, step for step.

docs/spec/autumnbench-harness.md describes what the harness does; each phase here cites the rules it
implements ([I1] ... [P7]). The phases use the same machinery as the worldtest ones (``Phase``,
the runner, observations, transcripts) with the harness's rules (``base``). The runner
(``llm_eval.worldtest.episode``) adds the composite's rules: the interaction budget counts every
step and the test's first observation answers the switching step [C3], and one cap of steps
(the profile's ``step_cap``, ``protocols.AUTUMNBENCH_STEP_CAP``) bounds interaction and test
together [C4].
"""

from .base import AutumnBenchPhase, HarnessRaise, grid_json, parse_game_action
from .cd import AutumnBenchCD
from .interaction import AutumnBenchInteraction
from .mfp import AutumnBenchMFP
from .planning import AutumnBenchPlanning

__all__ = ["AutumnBenchPhase", "HarnessRaise", "AutumnBenchInteraction", "AutumnBenchMFP",
           "AutumnBenchCD", "AutumnBenchPlanning", "grid_json", "parse_game_action"]
