"""The Starlette application: pages, the episode API and the static files.

Routes:

=====================================  ======================================================
``GET /``                              the start page (name, task, protocol)
``POST /start``                        start an episode (form + CSRF cookie), go to its page
``GET /play/{token}``                  the episode's page (``pages.play_page``)
``GET /api/episode/{token}``           its JSON view now (``view.page_view``, plus ``seq``)
``POST /api/episode/{token}/action``   ``{"seq": n, "action": "left"}`` with the episode's
                                       CSRF token in ``X-CSRF-Token``: the view after it
``GET /static/...``                    ``play.js``, ``serve.css`` (package data)
``GET /p/{token}``                     a study participant's page: consent, then their next
                                       task, or the episode under way (``study``)
``POST /p/{token}/consent``            consent given (form + CSRF cookie)
``POST /p/{token}/next``               start the participant's next task
``GET /api/study/{token}/results``     the study's results (the operator's token)
``GET /runs/{token}``                  the report of the run directories, live (``browse``;
                                       the operator's token), reloaded every 30 s
=====================================  ======================================================

With a study (``ServeSettings(study=spec)``) the start page and ``/start`` are closed:
participants come only through their links, and each reaches only their own tasks.

Every request is validated before it reaches an episode: the JSON body (a small object with
an integer ``seq`` and a text ``action``), the token, the origin and the action itself (a
refused action is answered 422 with the reason and never reaches the phase). Errors are JSON
``{"error": message}`` (400 bad request, 403 CSRF or origin, 404 no such episode, 409 out of
turn, 422 refused action). Waiting for an episode happens in worker threads, never in the
event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .browse import RUNS_CSP, RunsPage
from .live import LiveEpisodes, OutOfTurn, UnknownEpisode
from .pages import consent_page, message_page, play_page, start_page, task_page
from .security import (CSRF_COOKIE, CSRF_HEADER, SecurityHeaders, check_origin, new_token,
                       same_token)
from .study import Study
from .view import ActionRefused

__all__ = ["create_app", "ServeSettings", "MAX_BODY_BYTES", "LOOPBACK_HOSTS"]

MAX_BODY_BYTES = 4096
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
        if host in ("0.0.0.0", "::"):
            hosts = {"*"}   # the operator asked to be reachable under any name
        self.allowed_hosts = sorted(hosts)


def _shipped_tasks() -> list[tuple[str, str]]:
    from ..tasks.store import all_tasks

    return [(t.world, t.family) for t in all_tasks()]


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise ValueError(f"the request body is over {MAX_BODY_BYTES} bytes")
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise ValueError("the request body must be application/json")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


async def _form_body(request: Request) -> dict[str, str]:
    """An urlencoded form of at most ``MAX_BODY_BYTES``, each field given once."""
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise ValueError(f"the form is over {MAX_BODY_BYTES} bytes")
    if not request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"):
        raise ValueError("the form must be application/x-www-form-urlencoded")
    try:
        fields = parse_qs(body.decode("ascii"), keep_blank_values=True, strict_parsing=False,
                          max_num_fields=16)
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the form cannot be read") from None
    if any(len(values) != 1 for values in fields.values()):
        raise ValueError("a field of the form is given twice")
    return {key: values[0] for key, values in fields.items()}


async def _checked_form(request: Request) -> dict[str, str] | Response:
    """A state-changing form from this server's pages: the same origin, a readable form, and
    its ``csrf`` field equal to the CSRF cookie; else the error page to answer with."""
    refused = check_origin(request)
    if refused:
        return HTMLResponse(message_page("Refused", refused), status_code=403)
    try:
        form = await _form_body(request)
    except ValueError as exc:
        return HTMLResponse(message_page("Refused", str(exc)), status_code=400)
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not same_token(form.get("csrf"), cookie):
        return HTMLResponse(message_page("Refused", "the form's token does not match: reload "
                                         "the page and try again"), status_code=403)
    return form


def _with_csrf_cookie(request: Request, page) -> HTMLResponse:
    """``page(token)`` as a response that sets the form CSRF cookie (kept if present)."""
    token = request.cookies.get(CSRF_COOKIE) or new_token()
    response = HTMLResponse(page(token))
    response.set_cookie(CSRF_COOKIE, token, httponly=True, samesite="strict")
    return response


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
        return _with_csrf_cookie(request, lambda token: start_page(
            settings.tasks, token, protocol=settings.protocol))

    async def start(request: Request) -> Response:
        if settings.study is not None:
            return HTMLResponse(message_page("A study", "This server runs a study: please "
                                             "use the link you were given."), status_code=404)
        form = await _checked_form(request)
        if isinstance(form, Response):
            return form
        cookie = request.cookies[CSRF_COOKIE]
        participant = str(form.get("participant") or "").strip()
        task = str(form.get("task") or "")
        protocol = str(form.get("protocol") or settings.protocol)
        problem = None
        if not _PARTICIPANT.fullmatch(participant):
            problem = ("a name is 1 to 64 letters, digits, '_', '.' or '-', starting with a "
                       "letter or digit")
        elif tuple(task.split("/", 1)) not in known_tasks:
            problem = f"unknown task {task!r}"
        elif protocol not in ("worldtest", "autumnbench"):
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

    async def play(request: Request) -> Response:
        live: LiveEpisodes = request.app.state.episodes
        try:
            episode = await run_in_threadpool(live.get, request.path_params["token"])
        except UnknownEpisode as exc:
            return HTMLResponse(message_page("No such episode", str(exc), link=("/", "Start")),
                                status_code=404)
        return HTMLResponse(play_page(episode.token, episode.csrf,
                                      episode.extra.get("next", "/")))

    async def view(request: Request) -> Response:
        live: LiveEpisodes = request.app.state.episodes
        try:
            episode = await run_in_threadpool(live.get, request.path_params["token"])
        except UnknownEpisode as exc:
            return _error(404, str(exc))
        return JSONResponse(await run_in_threadpool(episode.view))

    async def action(request: Request) -> Response:
        live: LiveEpisodes = request.app.state.episodes
        try:
            episode = await run_in_threadpool(live.get, request.path_params["token"])
        except UnknownEpisode as exc:
            return _error(404, str(exc))
        refused = check_origin(request)
        if refused:
            return _error(403, refused)
        if not same_token(request.headers.get(CSRF_HEADER), episode.csrf):
            return _error(403, "refused: missing or wrong CSRF token (reload the page)")
        try:
            data = await _json_body(request)
        except ValueError as exc:
            return _error(400, str(exc))
        if set(data) != {"seq", "action"}:
            return _error(400, "the body is {\"seq\": <number>, \"action\": <text>}, got keys "
                               + ", ".join(sorted(map(str, data))))
        try:
            body = await run_in_threadpool(live.act, episode.token, data["seq"],
                                           data["action"])
        except ActionRefused as exc:
            return _error(422, str(exc))
        except OutOfTurn as exc:
            return _error(409, str(exc))
        return JSONResponse(body)

    opening: dict[str, asyncio.Lock] = {}   # one episode opens at a time per participant

    def _person(request: Request):
        study: Study | None = request.app.state.study
        person = study.participant(request.path_params["token"]) if study else None
        if person is None:
            return study, None, HTMLResponse(message_page(
                "No such link", "This link is not part of a study on this server."),
                status_code=404)
        return study, person, None

    async def _under_way(request: Request, person: dict):
        """The participant's episode under way: live in this server, or left unfinished by
        an earlier one and resumed now; None if there is none."""
        if not person["job"]:
            return None
        live: LiveEpisodes = request.app.state.episodes
        current = live.by_job(person["job"])
        if current is None:
            here = f"/p/{person['token']}"
            current = await run_in_threadpool(
                live.resume, person["job"], person["name"],
                extra={"participant": person["token"], "next": here})
        return current if current is not None and not current.done else None

    async def participant_home(request: Request) -> Response:
        study, person, missing = _person(request)
        if missing:
            return missing
        here = f"/p/{person['token']}"
        if person["consented_at"] is None:
            return _with_csrf_cookie(request, lambda token: consent_page(
                study.spec.consent, token, f"{here}/consent"))
        current = await _under_way(request, person)
        if current is not None:
            return RedirectResponse(f"/play/{current.token}", status_code=303)
        if study.next_task(person["token"]) is None:
            return HTMLResponse(message_page("Thank you", "You have finished every task of "
                                             "this study. You can close this page."))
        number, total = person["finished"] + 1, len(person["tasks"])
        return _with_csrf_cookie(request, lambda token: task_page(number, total, token,
                                                                  f"{here}/next"))

    async def participant_consent(request: Request) -> Response:
        study, person, missing = _person(request)
        if missing:
            return missing
        form = await _checked_form(request)
        if isinstance(form, Response):
            return form
        if form.get("agree") != "yes":
            return HTMLResponse(message_page("Consent", "Without your consent you cannot "
                                             "take part."), status_code=400)
        study.consent(person["token"])
        return RedirectResponse(f"/p/{person['token']}", status_code=303)

    async def participant_next(request: Request) -> Response:
        study, person, missing = _person(request)
        if missing:
            return missing
        form = await _checked_form(request)
        if isinstance(form, Response):
            return form
        here = f"/p/{person['token']}"
        if person["consented_at"] is None:
            return RedirectResponse(here, status_code=303)
        async with opening.setdefault(person["token"], asyncio.Lock()):   # a double click
            person = study.participant(person["token"])
            return await _open_next(request, study, person, here)

    async def _open_next(request: Request, study: Study, person: dict, here: str) -> Response:
        live: LiveEpisodes = request.app.state.episodes
        current = await _under_way(request, person)
        if current is not None:   # a second click: the same episode
            return RedirectResponse(f"/play/{current.token}", status_code=303)
        task = study.next_task(person["token"])
        if task is None:
            return RedirectResponse(here, status_code=303)
        episode = await run_in_threadpool(
            live.open, person["name"], *task,
            extra={"participant": person["token"], "next": here})
        study.started(person["token"], episode.job.id)
        return RedirectResponse(f"/play/{episode.token}", status_code=303)

    async def results(request: Request) -> Response:
        study: Study | None = request.app.state.study
        if study is None or not study.is_operator(request.path_params["token"]):
            return _error(404, "not found")
        live: LiveEpisodes = request.app.state.episodes
        rows = await run_in_threadpool(live.read_store, study.results)
        return JSONResponse({"study": study.spec.name, "episodes": rows},
                            headers={"Content-Disposition":
                                     f'attachment; filename="study-{study.spec.name}.json"'})

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
              Route("/p/{token}", participant_home),
              Route("/p/{token}/consent", participant_consent, methods=["POST"]),
              Route("/p/{token}/next", participant_next, methods=["POST"]),
              Route("/api/study/{token}/results", results),
              Route("/runs/{token}", runs),
              Mount("/static", static, name="static")]
    middleware = [Middleware(SecurityHeaders),
                  Middleware(TrustedHostMiddleware, allowed_hosts=settings.allowed_hosts)]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
