"""The Starlette application: pages, the episode API and the static files.

Routes:

=====================================  ======================================================
``GET /``                              the start page (name, task, protocol)
``POST /start``                        start an episode (form + its CSRF token), go to its page
``GET /play/{token}``                  the episode's page (``pages.play_page``)
``GET /api/episode/{token}``           its JSON view now (``view.page_view``, plus ``seq``)
``POST /api/episode/{token}/action``   ``{"seq": n, "action": "left"}`` with the episode's
                                       CSRF token in ``X-CSRF-Token``: the view after it
``GET /static/...``                    ``play.js``, ``serve.css`` (package data)
``/p/{token}...``, ``/api/study/...``  a study's participants and operator (``study_routes``)
``GET /runs/{token}``                  the report of the run directories, live (``browse``;
                                       the operator's token), reloaded every 30 s
=====================================  ======================================================

With a study (``ServeSettings(study=spec)``) the start page and ``/start`` are closed:
participants come only through their links, and each reaches only their own tasks.

Every request is validated before it reaches an episode: the JSON body (a small object with
an integer ``seq`` and a text ``action``, read by ``forms``), the token, the origin and the
action itself (a refused action is answered 422 with the reason and never reaches the
phase). Errors are JSON ``{"error": message}`` (400 bad request, 403 CSRF or origin, 404 no
such episode, 409 out of turn, 422 refused action). Waiting for an episode happens in worker threads, never in the
event loop.
"""

from __future__ import annotations

import contextlib
import re
from importlib.resources import files
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..worldtest.protocols import PROTOCOLS
from .browse import RUNS_CSP, RunsPage
from .forms import (
    MAX_BODY_BYTES,
    START_FORM,
    checked_form,
    form_token,
    json_body,
    json_error,
    with_csrf_cookie,
)
from .live import LiveEpisodes, OutOfTurn, UnknownEpisode
from .pages import message_page, play_page, start_page
from .security import CSRF_HEADER, FormTokens, SecurityHeaders, check_origin, new_token, same_token
from .study import Study
from .study_routes import study_routes
from .view import ActionRefused

__all__ = ["create_app", "ServeSettings", "MAX_BODY_BYTES", "LOOPBACK_HOSTS"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_PARTICIPANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_THREADS = 256   # worker threads for requests that wait on an episode


class ServeSettings:
    """What ``create_app`` serves: the run directory, the tasks offered, the defaults."""

    def __init__(self, run_dir: str | Path, *, host: str = "127.0.0.1", seed: int = 1,
                 protocol: str = "worldtest", interaction_steps: int | None = None,
                 tasks: list[tuple[str, str]] | None = None,
                 allowed_hosts: list[str] | None = None, study=None,
                 operator_token: str | None = None, browse: list[str] | None = None) -> None:
        self.run_dir = Path(run_dir)
        # the operator's token opens the runs page (and, in a study, the results): the
        # study's own token, else this one (made here unless given)
        self.operator_token = operator_token or new_token()
        self.browse = [self.run_dir, *map(Path, browse or ())]
        self.study = study   # a StudySpec: participants come through their links only
        if study is not None:
            seed, protocol = study.episode_seed, study.protocol
            interaction_steps = study.interaction_steps
        self.host = host
        self.seed = seed
        self.protocol = protocol
        self.interaction_steps = interaction_steps
        self.tasks = tasks if tasks is not None else _shipped_tasks()
        hosts = set(LOOPBACK_HOSTS) | {host} | set(allowed_hosts or ())
        if host in ("0.0.0.0", "::"):   # every interface: this machine's own names, never
            import socket  # any name (a DNS-rebinding page would pass)

            hosts.discard(host)
            hosts |= {socket.gethostname(), socket.getfqdn()}
        self.allowed_hosts = sorted(hosts)


def _shipped_tasks() -> list[tuple[str, str]]:
    from ..tasks.store import all_tasks

    return [(t.world, t.family) for t in all_tasks()]


def create_app(settings: ServeSettings, *, episodes: LiveEpisodes | None = None) -> Starlette:
    """The application serving ``settings`` (module docstring). The run directory's lock is
    held, and the episodes kept, from startup to shutdown (``episodes``: use these)."""
    known_tasks = set(settings.tasks)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        import anyio.to_thread

        from ..runlock import hold_run_dir

        anyio.to_thread.current_default_thread_limiter().total_tokens = _THREADS
        with hold_run_dir(settings.run_dir):
            study = Study(settings.study, settings.run_dir) if settings.study else None

            def moved_on(episode) -> None:
                if study is not None and "participant" in episode.extra:
                    study.finished(episode.extra["participant"], episode.job.id)

            live = episodes or LiveEpisodes(settings.run_dir, seed=settings.seed,
                                            protocol=settings.protocol,
                                            interaction_steps=settings.interaction_steps,
                                            on_end=moved_on)
            app.state.episodes = live
            app.state.study = study
            app.state.operator = study.state["operator"] if study else settings.operator_token
            try:
                yield
            finally:
                await run_in_threadpool(live.close)

    async def home(request: Request) -> Response:
        if settings.study is not None:
            return HTMLResponse(message_page("A study", "This server runs a study: please "
                                             "use the link you were given."), status_code=404)
        return with_csrf_cookie(request, lambda token: start_page(
            settings.tasks, token, protocol=settings.protocol), START_FORM)

    async def start(request: Request) -> Response:
        if settings.study is not None:
            return HTMLResponse(message_page("A study", "This server runs a study: please "
                                             "use the link you were given."), status_code=404)
        form = await checked_form(request, START_FORM)
        if isinstance(form, Response):
            return form
        cookie = form_token(request, START_FORM)   # the form shown again keeps its token
        participant = str(form.get("participant") or "").strip()
        task = str(form.get("task") or "")
        protocol = str(form.get("protocol") or settings.protocol)
        problem = None
        if not _PARTICIPANT.fullmatch(participant):
            problem = ("a name is 1 to 64 letters, digits, '_', '.' or '-', starting with a "
                       "letter or digit")
        elif tuple(task.split("/", 1)) not in known_tasks:
            problem = f"unknown task {task!r}"
        elif protocol not in PROTOCOLS:
            problem = f"unknown protocol {protocol!r}"
        if problem:
            page = start_page(settings.tasks, cookie, protocol=settings.protocol, error=problem)
            return HTMLResponse(page, status_code=400)
        world, family = task.split("/", 1)
        live: LiveEpisodes = request.app.state.episodes
        try:
            episode = await run_in_threadpool(live.open, participant, world, family,
                                              protocol=protocol)
        except (ActionRefused, UnknownEpisode) as exc:
            page = start_page(settings.tasks, cookie, protocol=settings.protocol,
                              error=str(exc))
            return HTMLResponse(page, status_code=400)
        return RedirectResponse(f"/play/{episode.token}", status_code=303)

    async def episode_of(request: Request):
        """The episode the address names, or the reason there is none (``UnknownEpisode``)."""
        live: LiveEpisodes = request.app.state.episodes
        try:
            return await run_in_threadpool(live.get, request.path_params["token"])
        except UnknownEpisode as exc:
            return exc

    async def play(request: Request) -> Response:
        episode = await episode_of(request)
        if isinstance(episode, UnknownEpisode):
            return HTMLResponse(message_page("No such episode", str(episode),
                                             link=("/", "Start")), status_code=404)
        return HTMLResponse(play_page(episode.token, episode.csrf,
                                      episode.extra.get("next", "/")))

    async def view(request: Request) -> Response:
        episode = await episode_of(request)
        if isinstance(episode, UnknownEpisode):
            return json_error(404, str(episode))
        return JSONResponse(await run_in_threadpool(episode.view))

    async def action(request: Request) -> Response:
        episode = await episode_of(request)
        if isinstance(episode, UnknownEpisode):
            return json_error(404, str(episode))
        refused = check_origin(request)
        if refused:
            return json_error(403, refused)
        if not same_token(request.headers.get(CSRF_HEADER), episode.csrf):
            return json_error(403, "refused: missing or wrong CSRF token (reload the page)")
        try:
            data = await json_body(request)
        except ValueError as exc:
            return json_error(400, str(exc))
        if set(data) != {"seq", "action"}:
            return json_error(400, "the body is {\"seq\": <number>, \"action\": <text>}, got keys "
                               + ", ".join(sorted(map(str, data))))
        try:
            body = await run_in_threadpool(request.app.state.episodes.act, episode.token,
                                           data["seq"], data["action"])
        except ActionRefused as exc:
            return json_error(422, str(exc))
        except OutOfTurn as exc:
            return json_error(409, str(exc))
        return JSONResponse(body)

    runs_page = RunsPage(settings.browse)

    async def runs(request: Request) -> Response:
        if not same_token(request.path_params["token"], request.app.state.operator):
            return HTMLResponse(message_page("Not found", "No such page."), status_code=404)
        text = await run_in_threadpool(runs_page.html)
        return HTMLResponse(text, headers={"content-security-policy": RUNS_CSP,
                                           "refresh": "30"})

    static = StaticFiles(directory=str(files("llm_eval.serve") / "static"))
    routes = [Route("/", home), Route("/start", start, methods=["POST"]),
              Route("/play/{token}", play), Route("/api/episode/{token}", view),
              Route("/api/episode/{token}/action", action, methods=["POST"]),
              *study_routes(),
              Route("/runs/{token}", runs),
              Mount("/static", static, name="static")]
    middleware = [Middleware(SecurityHeaders),
                  Middleware(TrustedHostMiddleware, allowed_hosts=settings.allowed_hosts)]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.form_tokens = FormTokens()   # this server's own secret: its forms' CSRF tokens
    return app
