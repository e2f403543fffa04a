"""The conformance layer (issue 29, item 3): requests checked against the providers' own SDK
types and strict-schema rules, multi-turn rules on recorded request sequences, and replies and
errors read from fixtures written from the providers' documented shapes.

Test modules here import the shared helpers of ``tests/adapters`` (the sample request, the
loopback fake provider) and this folder's own, by basename."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")
