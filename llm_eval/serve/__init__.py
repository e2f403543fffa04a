"""People in the browser: ``llm-eval serve``, a local web application where a person plays
the same WorldTest episodes agents play, recorded as ordinary jobs of a run directory.

- ``app``: the Starlette application (pages, the episode API, static files);
- ``live``: the episodes while they run (one thread each, driven by ``HumanAgent``);
- ``view``: what the page is shown of an observation, and which actions are accepted;
- ``pages``: the HTML, every text escaped; ``static/``: the page's script and style;
- ``security``: tokens, CSRF and origin checks, response headers;
(the ``serve`` subcommand is ``llm_eval.cli.serve``.)
"""

from ..lazy import lazy_exports

__all__ = ["create_app", "ServeSettings", "LiveEpisodes", "LiveEpisode", "page_view",
           "check_action", "ActionRefused"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "create_app": ".app", "ServeSettings": ".app", "LiveEpisodes": ".live",
    "LiveEpisode": ".live", "page_view": ".view", "check_action": ".view",
    "ActionRefused": ".view"})
