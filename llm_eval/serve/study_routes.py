"""The routes of a study's participants and operator (``study.Study``, kept in
``app.state.study``; the episodes in ``app.state.episodes``).

=====================================  ======================================================
``GET /p/{token}``                     consent first; then the episode under way (resumed if
                                       an earlier server left it), the next task's page, or
                                       the thank-you page
``POST /p/{token}/consent``            consent given (form + its CSRF token)
``POST /p/{token}/next``               start the next task (one at a time per participant,
                                       so a double click opens one episode)
``GET /api/study/{token}/results``     the results (the operator's token), a JSON download
=====================================  ======================================================

A link token finds one participant, and everything here is theirs only: their forms' CSRF
tokens too (scope ``_scope(person)``), so one participant's page cannot post for another.
"""

from __future__ import annotations

import asyncio

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .forms import checked_form, json_error, with_csrf_cookie
from .live import LiveEpisodes
from .pages import consent_page, message_page, task_page
from .study import Study

__all__ = ["study_routes"]


def _scope(person: dict) -> str:
    """The CSRF scope of a participant's forms: their link."""
    return f"participant:{person['token']}"


def study_routes() -> list[Route]:
    """The study's routes (module docstring)."""
    opening: dict[str, asyncio.Lock] = {}   # one episode opens at a time per participant

    def _person(request: Request):
        study: Study | None = request.app.state.study
        person = study.participant(request.path_params["token"]) if study else None
        if person is None:
            return study, None, HTMLResponse(message_page(
                "No such link", "This link is not part of a study on this server."),
                status_code=404)
        return study, person, None

    async def _person_posting(request: Request):
        """``_person`` of a form post, its form checked (origin, CSRF): (study, person, form,
        None), or a response refusing it in the last place."""
        study, person, missing = _person(request)
        if missing:
            return study, person, None, missing
        form = await checked_form(request, _scope(person))
        if isinstance(form, Response):
            return study, person, None, form
        return study, person, form, None

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
            return with_csrf_cookie(request, lambda token: consent_page(
                study.spec.consent, token, f"{here}/consent"), _scope(person))
        current = await _under_way(request, person)
        if current is not None:
            return RedirectResponse(f"/play/{current.token}", status_code=303)
        if study.next_task(person["token"]) is None:
            return HTMLResponse(message_page("Thank you", "You have finished every task of "
                                             "this study. You can close this page."))
        number, total = person["finished"] + 1, len(person["tasks"])
        return with_csrf_cookie(request, lambda token: task_page(number, total, token,
                                                                  f"{here}/next"),
                                _scope(person))

    async def participant_consent(request: Request) -> Response:
        study, person, form, refused = await _person_posting(request)
        if refused:
            return refused
        if form.get("agree") != "yes":
            return HTMLResponse(message_page("Consent", "Without your consent you cannot "
                                             "take part."), status_code=400)
        study.consent(person["token"])
        return RedirectResponse(f"/p/{person['token']}", status_code=303)

    async def participant_next(request: Request) -> Response:
        study, person, _, refused = await _person_posting(request)
        if refused:
            return refused
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
            return json_error(404, "not found")
        live: LiveEpisodes = request.app.state.episodes
        rows = await run_in_threadpool(live.read_store, study.results)
        return JSONResponse({"study": study.spec.name, "episodes": rows},
                            headers={"Content-Disposition":
                                     f'attachment; filename="study-{study.spec.name}.json"'})


    return [Route("/p/{token}", participant_home),
            Route("/p/{token}/consent", participant_consent, methods=["POST"]),
            Route("/p/{token}/next", participant_next, methods=["POST"]),
            Route("/api/study/{token}/results", results)]
