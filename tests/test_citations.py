"""Every specification the code, tests and docs cite is a file in the repository, and every
section, quirk, conformance case and rule id they cite exists in it (issue 31, item 6).

Citations take three shapes:
- ``docs/spec/<name>.md`` followed by section numbers and ids (``docs/spec/autumn.md 15.1 Q12``,
  ``docs/spec/autumnbench-harness.md D1-D5``), or a markdown link into ``docs/spec/`` with an
  anchor (``[...](spec/worldtest.md#34-protocol-profiles)``);
- rule ids of the published harness in brackets, ``[C4]``, ``[X1-X13, D4]``;
- the names of the upstream documents the specs were once cited by (``WORLDTEST.md``,
  ``AUTUMN.md``, ...), which are not in the repository and so are always a dangling citation.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = ROOT / "docs" / "spec"

# Where citations live: code, tests, docs, the recorded-data READMEs, Autumn programs.
SCANNED_DIRS = ("llm_eval", "adapters", "prompts", "transcripts", "tests", "benchmarks",
                "examples", "docs")
SCANNED_SUFFIXES = {".py", ".md", ".sexp", ".txt", ".yaml", ".yml"}
# The conformance extractor reads the upstream Autumn specification, whose file name it must
# therefore say, and its output names its source; neither cites it as a reference for readers.
UPSTREAM_READERS = {"tests/autumn/conformance/extract_cases.py",
                    "tests/autumn/conformance/cases.yaml",
                    "tests/autumn/test_conformance.py"}
# This file's crafted dangling citations are its test inputs.
CHECKER = "tests/test_citations.py"

UPSTREAM = re.compile(r"(?<![\w/.-])(?:WORLDTEST|AUTUMN|AUTUMNBENCH-HARNESS|DESIGN|STYLE)\.md\b")
_ID = r"(?:[A-Z]\d{1,2}|\d+(?:\.\d+)*)"
_REF = rf"{_ID}(?:\s*-\s*{_ID})?"
SPEC_CITE = re.compile(
    r"docs/spec/([\w-]+\.md)(#[\w.-]+)?"
    rf"(?:(?:\s+|\s+sections?\s+)({_REF}(?:(?:,\s*|/|\s+and\s+|\s+){_REF})*))?")
SPEC_LINK = re.compile(r"\]\(((?:\.\./)*(?:docs/)?spec/|)([\w-]+\.md)(#[\w.-]+)?\)")
RULES = r"[ACDGIMPRSX]\d{1,2}"
BRACKETED = re.compile(rf"\[({RULES}(?:-{RULES})?(?:,\s*{RULES}(?:-{RULES})?)*)\]")
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)
ANCHOR = re.compile(r'<a id="([\w.-]+)"></a>')


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@cache
def spec_targets(name: str) -> frozenset[str] | None:
    """Everything of ``docs/spec/<name>`` a citation may name: section numbers, explicit
    anchors (rule ids, quirk ids, conformance cases) and heading anchors (``#...``)."""
    path = SPEC_DIR / name
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    found = set(HEADING.findall(text)) | set(ANCHOR.findall(text))
    found |= {"#" + a for a in ANCHOR.findall(text)}
    found |= {"#" + _slug(h) for h in re.findall(r"^#{1,6}\s+(.+)$", text, re.MULTILINE)}
    return frozenset(found)


def _expand(ref: str) -> list[str]:
    """``D1-D5`` -> its two ends (each must exist; ids between them are contiguous)."""
    ends = [r.strip() for r in ref.split("-")]
    if len(ends) == 2 and ends[1][:1].isdigit() and ends[0][:1].isalpha():
        ends[1] = ends[0][0] + ends[1]          # "M4-7" style: the letter carries over
    return ends


def _is_spec_id(name: str, ref: str) -> bool:
    # a bare letter-id names a rule of the harness page, a quirk (Q..) or case (C..) of autumn.md
    return bool(ref) and (ref[0].isdigit() or name != "worldtest.md")


def citation_problems(text: str, source: str = "<text>") -> list[str]:
    """The dangling citations of ``text``, each as ``source:line: what is missing``."""
    problems = []

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    for m in UPSTREAM.finditer(text):
        problems.append(f"{source}:{line_of(m.start())}: {m.group(0)} is not in the "
                        "repository; cite docs/spec/ instead")
    for m in SPEC_CITE.finditer(text):
        name, anchor, refs = m.group(1), m.group(2), m.group(3)
        targets = spec_targets(name)
        where = f"{source}:{line_of(m.start())}"
        if targets is None:
            problems.append(f"{where}: docs/spec/{name} does not exist")
            continue
        if anchor and anchor not in targets:
            problems.append(f"{where}: docs/spec/{name} has no anchor {anchor}")
        for ref in re.split(r",\s*|/|\s+and\s+|\s+", refs or ""):
            for one in _expand(ref):
                if _is_spec_id(name, one) and one not in targets:
                    problems.append(f"{where}: docs/spec/{name} has no section or id {one}")
    for m in SPEC_LINK.finditer(text):
        prefix, name, anchor = m.groups()
        if not prefix and not source.startswith("docs/spec/"):
            continue                            # a link to some other page of that name
        targets = spec_targets(name)
        where = f"{source}:{line_of(m.start())}"
        if targets is None:
            problems.append(f"{where}: link to docs/spec/{name}, which does not exist")
        elif anchor and anchor not in targets:
            problems.append(f"{where}: docs/spec/{name} has no anchor {anchor}")
    autumnbench = spec_targets("autumnbench-harness.md") or frozenset()
    autumn = spec_targets("autumn.md") or frozenset()
    for m in BRACKETED.finditer(text):
        for ref in re.split(r",\s*", m.group(1)):
            for one in _expand(ref):
                # two-digit ids with a leading zero are Autumn conformance cases (C01..C55)
                known = autumn if re.fullmatch(r"[A-Z]0\d", one) else autumnbench
                if one not in known:
                    problems.append(f"{source}:{line_of(m.start())}: rule {one} is not in "
                                    "docs/spec/autumnbench-harness.md")
    return problems


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in SCANNED_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if (path.suffix in SCANNED_SUFFIXES and path.is_file()
                    and "__pycache__" not in path.parts):
                files.append(path)
    return files


def test_every_citation_in_the_repository_resolves():
    problems = []
    for path in scanned_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == CHECKER:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found = citation_problems(text, rel)
        if rel in UPSTREAM_READERS:
            found = [p for p in found if "is not in the repository" not in p]
        problems += found
    assert not problems, "dangling citations:\n" + "\n".join(problems)


def test_the_three_specifications_exist_with_their_ids():
    autumnbench = spec_targets("autumnbench-harness.md")
    autumn = spec_targets("autumn.md")
    worldtest = spec_targets("worldtest.md")
    assert autumnbench and autumn and worldtest
    # the published harness's 67 rules, each with an anchor (docs/autumnbench-conformance.md)
    counts = {"D": 6, "C": 7, "R": 2, "I": 8, "M": 10, "X": 13, "P": 7, "S": 2, "A": 9, "G": 3}
    for letter, n in counts.items():
        for i in range(1, n + 1):
            assert f"{letter}{i}" in autumnbench, f"{letter}{i}"
    assert {f"Q{i}" for i in range(1, 27)} <= autumn
    assert {f"C{i:02d}" for i in range(1, 56)} <= autumn
    assert {str(i) for i in range(1, 19)} <= autumn
    assert {"3.1", "3.2", "3.3", "3.4", "8"} <= worldtest


def test_the_conformance_table_names_every_rule_of_the_harness_page():
    table = (ROOT / "docs" / "autumnbench-conformance.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| \[([A-Z]\d{1,2})\]\(spec/autumnbench-harness\.md#\1\)",
                          table, re.MULTILINE))
    rules = {a for a in ANCHOR.findall((SPEC_DIR / "autumnbench-harness.md").read_text())}
    assert rows == rules


@pytest.mark.parametrize("bad, missing", [
    ("the cap of the harness [C4, C9]", "rule C9"),
    ("as docs/autumnbench-harness.md says [X14]", "rule X14"),
    ("the ranges [M1-M11]", "rule M11"),
    ("docs/spec/autumn.md 19.2 says", "no section or id 19.2"),
    ("docs/spec/autumn.md 15.1 Q12, Q27", "no section or id Q27"),
    ("docs/spec/autumnbench-harness.md D1-D7", "no section or id D7"),
    ("docs/spec/worldtest.md 3.5", "no section or id 3.5"),
    ("see docs/spec/autumn-language.md 2", "autumn-language.md does not exist"),
    ("docs/spec/worldtest.md#35-profiles", "no anchor #35-profiles"),
    ("the protocol (WORLDTEST.md 3.2)", "WORLDTEST.md is not in the repository"),
    ("the language (AUTUMN.md 5.2)", "AUTUMN.md is not in the repository"),
])
def test_a_dangling_citation_is_reported(bad, missing):
    problems = citation_problems(bad, "crafted.py")
    assert any(missing in p for p in problems), problems


@pytest.mark.parametrize("good", [
    "the cap [C4] and the ranges [X1-X13, D4]",
    "docs/spec/autumn.md 15.1 Q12, Q14 and docs/spec/autumn.md 2-4 and 12-13",
    "docs/spec/autumn.md 5.6/5.7",
    "docs/spec/worldtest.md 1 and 3",
    "docs/spec/autumnbench-harness.md D1-D5",
    "[the spec](spec/worldtest.md#34-protocol-profiles)",
    "a list index [0] and a regex [A-Z]",
])
def test_a_resolving_citation_is_not_reported(good):
    assert citation_problems(good, "docs/x.md") == []
