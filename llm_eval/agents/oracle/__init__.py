"""The oracle: knows the true program (docs/spec/worldtest.md 6); the upper reference and the
task checker.

- ``solver``: what knowing the program answers, for any protocol: the MFP option
  (``mfp_answer``), the first changed frame (``cd_change_frame``), a path after which a CD
  condition holds (``change_path``), a plan (``plan``);
- ``moves``: what every protocol's moves share (the task, notes, search, a planned phase);
- ``worldtest``, ``autumnbench``: the moves of each protocol, built on the solver;
- ``agent``: ``OracleAgent``, which plays the moves of the episode's protocol.
"""

from .agent import OracleAgent
from .autumnbench import AutumnBenchMoves
from .solver import ChangeSearch, cd_change_frame, change_path, condition_met, mfp_answer, plan
from .worldtest import WorldTestMoves

__all__ = ["OracleAgent", "mfp_answer", "cd_change_frame", "change_path", "ChangeSearch",
           "condition_met", "plan", "WorldTestMoves", "AutumnBenchMoves"]
