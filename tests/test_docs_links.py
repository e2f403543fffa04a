"""Every link between the README and the docs pages resolves: the file exists, and an anchor
(``page.md#section``) names a heading of that page as GitHub spells it (lower case, punctuation
but ``-`` and ``_`` dropped, spaces as ``-``, repeats numbered) or an explicit ``<a id="...">``
(the rule ids of docs/spec/autumnbench-harness.md)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slugs(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings (code blocks left out), and its explicit
    ``<a id="...">`` anchors."""
    found: set[str] = set(re.findall(r'<a id="([^"]+)">', markdown))
    fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", line):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        base, n = slug, 1
        while slug in found:
            slug, n = f"{base}-{n}", n + 1
        found.add(slug)
    return found


def broken_links(page: Path) -> list[str]:
    problems = []
    for n, line in enumerate(page.read_text().splitlines(), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):   # http:, mailto:
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                problems.append(f"{page.name}:{n}: {target}: no such file")
            elif anchor and file.suffix == ".md" and anchor not in slugs(file.read_text()):
                problems.append(f"{page.name}:{n}: {target}: no heading with that anchor")
    return problems


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_every_link_of_the_readme_and_the_docs_resolves():
    assert [p for page in pages() for p in broken_links(page)] == []


def test_a_wrong_file_or_anchor_is_found(tmp_path):
    (tmp_path / "b.md").write_text("# Title\n\n## `llm-eval run SPEC` and more\n\n## Title\n")
    page = tmp_path / "a.md"
    page.write_text("[ok](b.md#llm-eval-run-spec-and-more) [ok](b.md#title-1) [ok](#top)\n"
                    "[bad](c.md) [bad](b.md#llm-eval-run) [ok](https://x.org/a#b) [ok](b.md#R1)\n"
                    "# Top\n")
    (tmp_path / "b.md").write_text((tmp_path / "b.md").read_text() + '- <a id="R1"></a>R1\n')
    assert broken_links(page) == ["a.md:2: c.md: no such file",
                                  "a.md:2: b.md#llm-eval-run: no heading with that anchor"]
