"""The server's HTML pages, every text escaped (``report.markup.tag``).

- ``start_page``: a participant's name, a task (world and family) and the protocol; posts
  ``/start`` with the form's CSRF token;
- ``play_page``: the shell the script ``play.js`` fills from the episode's JSON view; the
  episode's address and CSRF token travel in ``<meta>`` elements, and the page runs no inline
  script (the Content-Security-Policy allows only ``/static``);
- ``message_page``: a title and a paragraph (errors, the end of a study);
- ``consent_page`` and ``task_page``: a study participant's consent form and the page that
  starts their next task (both post with the form's CSRF token).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..report.markup import Markup, tag
from ..worldtest.protocols import PROTOCOLS

__all__ = ["start_page", "play_page", "message_page", "document", "consent_page",
           "task_page"]

_SCRIPT = Markup('<script src="/static/play.js" defer></script>')


def document(title: str, *body: object, head: Iterable[object] = ()) -> str:
    """A whole page: ``title``, the stylesheet, ``head`` elements and ``body``."""
    return "<!DOCTYPE html>\n" + tag(
        "html",
        tag("head", Markup('<meta charset="utf-8">'),
            tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
            tag("title", title), tag("link", rel="stylesheet", href="/static/serve.css"),
            *head),
        tag("body", *body), lang="en")


def message_page(title: str, text: str, *, link: tuple[str, str] | None = None) -> str:
    parts = [tag("h1", title), tag("p", text)]
    if link is not None:
        parts.append(tag("p", tag("a", link[1], href=link[0])))
    return document(title, tag("main", *parts, class_="message"))


def start_page(tasks: Iterable[tuple[str, str]], csrf: str | None, *, protocol: str,
               error: str | None = None) -> str:
    """The form that starts an episode (module docstring); ``tasks`` are (world, family)."""
    options = [tag("option", f"{world} ({family})", value=f"{world}/{family}")
               for world, family in tasks]
    protocols = [tag("option", name, value=name, selected=name == protocol)
                 for name in PROTOCOLS]
    form = tag(
        "form",
        tag("input", type="hidden", name="csrf", value=csrf),
        tag("label", "Your name (letters, digits, '_', '.', '-')",
            tag("input", name="participant", required=True, maxlength="64",
                pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}", autocomplete="off")),
        tag("label", "Task", tag("select", *options, name="task")),
        tag("label", "Protocol", tag("select", *protocols, name="protocol")),
        tag("button", "Start", type="submit", id="start"),
        method="post", action="/start", class_="start")
    intro = tag("p", "You will first explore a grid world with no goal: press the arrow "
                     "keys, click cells, wait, reset it as often as you like. When you "
                     "think you understand how it works, go to the test. The test asks "
                     "one question about the same world.")
    body = [tag("h1", "Play a world"), intro]
    if error:
        body.append(tag("p", error, class_="error", role="alert"))
    return document("Play a world", tag("main", *body, form))


def consent_page(text: str, csrf: str, action: str) -> str:
    """The study's consent text (paragraphs at blank lines) and an "I agree" form."""
    paragraphs = [tag("p", part.strip()) for part in text.split("\n\n") if part.strip()]
    form = tag("form", tag("input", type="hidden", name="csrf", value=csrf),
               tag("input", type="hidden", name="agree", value="yes"),
               tag("button", "I agree: start", type="submit", id="agree"),
               method="post", action=action)
    return document("Consent", tag("main", tag("h1", "Before you start"), *paragraphs, form,
                                   class_="message"))


def task_page(number: int, total: int, csrf: str, action: str) -> str:
    """"Task ``number`` of ``total``" and the button that starts it."""
    form = tag("form", tag("input", type="hidden", name="csrf", value=csrf),
               tag("button", "Start", type="submit", id="next-task"),
               method="post", action=action)
    intro = tag("p", "First explore the world with no goal (arrow keys, clicks, waiting, "
                     "resets); when you understand it, go to the test.")
    return document(f"Task {number} of {total}",
                    tag("main", tag("h1", f"Task {number} of {total}"), intro, form,
                        class_="message"))


def play_page(token: str, csrf: str, next_url: str = "/") -> str:
    """The shell of an episode's page (module docstring)."""
    controls = tag(
        "section",
        tag("div", "", id="world-buttons", class_="buttons"),
        tag("div", "", id="phase-buttons", class_="buttons"),
        tag("div", "", id="browse", class_="buttons"),
        tag("label", tag("input", type="checkbox", id="realtime"),
            " real time: a noop every ",
            tag("input", type="number", id="tick-ms", value="500", min="100", max="5000",
                step="100"), " ms while you do nothing", class_="realtime"),
        tag("p", "Keys: arrows move, space or . does nothing (noop), r resets, "
                 "click a cell to click it.", class_="keys"),
        tag("div", tag("h2", "Goal"), tag("img", id="goal", alt="the goal"),
            tag("p", "", id="goal-note"), id="goal-box", hidden=True),
        id="controls")
    board = tag(
        "section",
        tag("div", tag("img", id="grid", alt="the grid", draggable="false"), class_="frame"),
        id="board")
    body = [
        tag("header", tag("h1", "", id="phase"), tag("p", "", id="status")),
        tag("p", "", id="message", role="status"),
        tag("pre", "", id="harness-text", hidden=True),
        tag("div", board, controls, class_="layout"),
        tag("section", tag("h2", "Which patch fills the hidden rectangle of the last frame?"),
            tag("div", "", id="options"), id="mfp-box", hidden=True),
        tag("section", tag("h2", "Finished"),
            tag("p", "Thank you: this episode is over and recorded."),
            tag("p", tag("a", "Continue", href=next_url, id="next-link")),
            id="done-box", hidden=True),
    ]
    head = [tag("meta", name="episode", content=token),
            tag("meta", name="csrf-token", content=csrf), _SCRIPT]
    return document("Play", tag("main", *body, id="play"), head=head)
