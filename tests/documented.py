"""The pages whose shown commands the tests rerun: the README (the front door) and the
reference pages it sends readers to. A ``$ llm-eval ...`` line in a console block of any of
them is an example whose output must be current."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/reference.md", "docs/suite-results.md")


def page_lines() -> list[str]:
    """The lines of every page, page after page (each page closes its own code blocks)."""
    return [line for page in PAGES for line in (REPO / page).read_text().splitlines()]
