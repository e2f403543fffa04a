"""A hostile run (payloads in the model's text, tool calls, invalid replies, action messages,
settings, errors, run and file names) cannot put markup or script into the report: loaded in
headless chromium, with and without the page's Content-Security-Policy, the title stays, no
script or injected element exists, and every payload shows as text."""

from __future__ import annotations

import html as html_module

from report_fixtures import ALL, PAYLOADS, SCRIPT, Elements, dump_dom

from llm_eval.report import ViewerLimits, build_report
from llm_eval.report.page import CSP, TITLE

ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "nav", "a",
                "ul", "li", "p", "table", "tr", "th", "td", "tbody", "div", "span", "b",
                "code", "pre", "details", "summary", "figure", "figcaption", "img"}


def check_dom(dom: str) -> None:
    page = Elements(dom)
    assert page.titles == [TITLE], page.titles
    assert "PWNED" not in "".join(page.titles)
    tags = {name for name, _ in page.tags}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS   # no script, svg, iframe, textarea...
    for name, attributes in page.tags:
        assert not any(a.startswith("on") for a in attributes), (name, attributes)
        if name == "img":
            assert attributes["src"].startswith("data:image/png;base64,"), attributes
        if name == "a":
            assert attributes["href"].startswith("#"), attributes
    # the payloads are there, as text
    assert html_module.escape(SCRIPT, quote=False) in dom
    assert dom.count("document.title='PWNED'") >= 10


def test_hostile_text_is_shown_escaped_and_never_runs(hostile_run, tmp_path):
    report = build_report([hostile_run], tmp_path / "report.html", limits=ViewerLimits())
    text = report.read_text(encoding="utf-8")
    for payload in PAYLOADS:
        assert payload not in text, payload
        assert html_module.escape(payload, quote=True) in text, payload
    assert "<script" not in text.lower() and "<svg" not in text.lower()
    # the run store's error of a job that left no transcript is shown too
    assert html_module.escape("crashed: " + SCRIPT, quote=True) in text

    check_dom(dump_dom(report, tmp_path / "profile"))
    # the same page without its Content-Security-Policy: escaping alone must hold
    meta = f'<meta http-equiv="Content-Security-Policy" content="{html_module.escape(CSP)}">'
    assert meta in text
    bare = tmp_path / "no-csp.html"
    bare.write_text(text.replace(meta, ""), encoding="utf-8")
    check_dom(dump_dom(bare, tmp_path / "profile"))


def test_the_dom_check_catches_an_injection(tmp_path):
    """The browser check itself: an unescaped payload is caught."""
    page = tmp_path / "bad.html"
    page.write_text(f"<html><head><title>{TITLE}</title></head><body>{ALL}</body></html>",
                    encoding="utf-8")
    dom = dump_dom(page, tmp_path / "profile")
    try:
        check_dom(dom)
    except AssertionError:
        return
    raise AssertionError("an injected page passed the check")
