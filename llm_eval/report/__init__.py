"""The report: one self-contained HTML file of one or more runs, and its plots.

- ``markup``: the only way text reaches the page (``tag`` escapes everything it is given);
- ``plots``: family scores with CIs, compute-scaling small multiples, behaviour (PNG bytes);
- ``viewer``: the transcript viewer (``<details>`` per episode, phase and step; no script);
- ``frames``: the frames the agent saw, a planning goal, MFP candidate patches as PNG URIs;
- ``page``: ``build_report`` / ``render_report``, the sections put together;
- ``commands``: ``llm-eval report RUN_DIR... -o report.html``.
"""

from .commands import add_report_parser, cmd_report
from .page import build_report, render_report
from .viewer import ViewerLimits

__all__ = ["build_report", "render_report", "ViewerLimits", "add_report_parser", "cmd_report"]
