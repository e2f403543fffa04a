"""The escaping door: text is always escaped, only our own tags and attributes are written."""

from __future__ import annotations

import pytest

from llm_eval.report.markup import Markup, escape, join, png_uri, tag


def test_text_and_attribute_values_are_escaped():
    payload = "<script>alert('x')</script>\"&"
    html = tag("td", payload, title=payload, data_model=payload)
    assert "<script>" not in html
    assert html == ('<td title="&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&quot;&amp;" '
                    'data-model="&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&quot;&amp;">'
                    "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&quot;&amp;</td>")


def test_only_markup_built_here_passes_through_and_never_into_an_attribute():
    inner = tag("b", "<i>")
    assert tag("p", inner, "<i>") == "<p><b>&lt;i&gt;</b>&lt;i&gt;</p>"
    assert tag("p", title=Markup('"><x>')) == '<p title="&quot;&gt;&lt;x&gt;"></p>'
    assert join(["<a>", inner], " ") == "&lt;a&gt; <b>&lt;i&gt;</b>"
    assert escape(None) == "" and escape(3) == "3"


def test_scripts_and_event_handlers_cannot_be_written():
    for name in ("script", "iframe", "Script", "a b", "img/"):
        with pytest.raises(ValueError):
            tag(name)
    for attribute in ("onload", "onerror", "on_click", "x y"):
        with pytest.raises(ValueError):
            tag("img", **{attribute: "1"})
    with pytest.raises(ValueError):
        tag("img", "child")


def test_boolean_and_missing_attributes():
    assert tag("details", open=True, title=None, hidden=False) == "<details open></details>"
    assert tag("img", src="data:image/png;base64,AA==", class_="f") == \
        '<img src="data:image/png;base64,AA==" class="f">'


def test_png_uri_takes_only_png_bytes():
    assert png_uri(b"\x89PNG\r\n\x1a\nrest") == "data:image/png;base64,iVBORw0KGgpyZXN0"
    with pytest.raises(ValueError):
        png_uri(b"<svg onload=alert(1)>")
