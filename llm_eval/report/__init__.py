"""The report: one self-contained HTML file of one or more runs, and its plots.

- ``markup``: the only way text reaches the page (``tag`` escapes everything it is given);
- ``plots``: family scores with CIs, compute-scaling small multiples, behaviour (PNG bytes);
- ``viewer``: the transcript viewer (``<details>`` per episode, phase and step; no script);
- ``frames``: the frames the agent saw, a planning goal, MFP candidate patches as PNG URIs;
- ``page``: ``build_report`` / ``render_report``, the sections put together;
(``llm-eval report`` is ``llm_eval.cli.report``.)
"""

from ..lazy import lazy_exports

_EXPORTS = {
    "build_report": ".page",
    "render_report": ".page", "ViewerLimits": ".viewer",
}

__all__ = ["build_report", "render_report", "ViewerLimits"]

# each name is imported from its module when first used (``llm_eval.lazy``)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
