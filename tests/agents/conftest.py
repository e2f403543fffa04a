"""The agents' tests use the tasks built in tests/worldtest (worldtest_tasks)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "worldtest"))
