"""The published harness's own instruction texts, read at run time from the user's checkout.

This project may not copy the harness's prose, so the ``autumnbench`` profile words its
instructions itself. ``--harness-texts DIR`` (spec key ``harness_texts``) instead reads them
from a checkout of the published harness that the user points to, so that a run shows the
harness's exact words while the project contains none of them.

``DIR`` is the checkout's root (then the files are under ``python_examples/autumnbench/``) or
that folder itself. Nothing is imported or executed: each file is parsed with ``ast`` and the
strings are taken where the harness defines them (docs/spec/autumnbench-harness.md names the
files), as string literals, implicit or ``+`` concatenations of them, or f-strings without
placeholders:

=====================  ==================  =================================================
key                    file                where
=====================  ==================  =================================================
system                 prompts.py          ``SYSTEM_PROMPT_WITH_HINT`` (``hint`` true) [A2]
action_prompt          prompts.py          ``ACTION_PROMPT_REFLEXION`` (``reflection``) [A3]
response_prompt        prompts.py          ``RESPONSE_PROMPT_SCRATCHPAD`` (scratchpad) [A3]
interaction_intro      concrete_envs.py    the string ``InteractiveEnvironment
                                           .get_instruction_text`` returns [I1]
interaction_grid_line  concrete_envs.py    in ``InteractiveEnvironment.get_observation``, the
                                           string added to ``self.get_instruction_text()``
cd_intro               concrete_envs.py    in ``CDSliderEnvironment.get_observation``, the
                                           string given to ``text_data`` under
                                           ``if not self.inited`` [X1]
planning_intro         concrete_envs.py    the same in ``PlanningEnvironment
                                           .get_observation`` [P3]
mfp_intro              concrete_envs.py    in ``MARAMFPEnvironment.get_observation``, the first
                                           string (in source order) added to a
                                           ``json.dumps(...)`` call [M2]
skip_line              concrete_envs.py    in ``InteractiveEnvironment.step``, the first
                                           f-string given as ``text_data=`` with two
                                           placeholders (the frames skipped, the grid) [I6]
=====================  ==================  =================================================

``skip_line`` is kept as a template: its literal parts verbatim, its two placeholders filled
with the count of frames and the grid JSON, as the harness fills them (``skip_line(n, grid)``).

The defaults are the harness's (``hint``, ``instruction_type`` reflection, ``use_scratchpad``).
The first observation of each phase is then the harness's concatenation: the intro (and for
the interaction the grid line) immediately followed by the grid JSON, with no separator of
ours. The per-turn message is the observation, a blank line, "The following actions are
available at this step: " with the offered strings joined by ``",\\n"``, a newline, the action
prompt, a newline and the response prompt [A3]; the system prompt is ``system``.

A directory that lacks a file, or a file where a string is not found as described, is a
``HarnessTextsError`` naming the file and the string. ``HarnessTexts.record()`` says which
texts were read, from where, with each file's and each text's sha256: it goes into the job's
settings and so into the transcript header.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import LlmEvalError

__all__ = ["HarnessTexts", "HarnessTextsError", "load_harness_texts", "TEXT_KEYS",
           "SUBFOLDER", "AVAILABLE_ACTIONS", "IMAGE_GRID_LINE"]

#: where the harness's files sit inside a checkout of its repository
SUBFOLDER = Path("python_examples") / "autumnbench"
#: the per-turn line before the offered actions, quoted in the harness's specification [A3]
AVAILABLE_ACTIONS = "The following actions are available at this step: "
#: the text before the image in image mode, quoted in the harness's specification [A7]
IMAGE_GRID_LINE = "The current grid is as follows:"

_PROMPTS = "prompts.py"
_ENVS = "concrete_envs.py"
#: key -> (file, human-readable place)
SOURCES: dict[str, tuple[str, str]] = {
    "system": (_PROMPTS, "SYSTEM_PROMPT_WITH_HINT"),
    "action_prompt": (_PROMPTS, "ACTION_PROMPT_REFLEXION"),
    "response_prompt": (_PROMPTS, "RESPONSE_PROMPT_SCRATCHPAD"),
    "interaction_intro": (_ENVS, "InteractiveEnvironment.get_instruction_text: the string "
                                 "returned"),
    "interaction_grid_line": (_ENVS, "InteractiveEnvironment.get_observation: the string "
                                     "added to self.get_instruction_text()"),
    "cd_intro": (_ENVS, "CDSliderEnvironment.get_observation: the string given to text_data "
                        "under 'if not self.inited'"),
    "planning_intro": (_ENVS, "PlanningEnvironment.get_observation: the string given to "
                              "text_data under 'if not self.inited'"),
    "mfp_intro": (_ENVS, "MARAMFPEnvironment.get_observation: the first string added to a "
                         "json.dumps(...) call"),
    "skip_line": (_ENVS, "InteractiveEnvironment.step: the first f-string given as text_data= "
                         "with two placeholders"),
}
TEXT_KEYS = tuple(SOURCES)


class HarnessTextsError(LlmEvalError):
    """``--harness-texts DIR`` does not hold what is needed; names the file and the string."""


@dataclass(frozen=True)
class HarnessTexts:
    """The harness's instruction strings (``values[key]``, keys ``TEXT_KEYS``), the folder
    they were read from and the sha256 of each file read."""

    folder: str
    values: dict[str, str]
    files: dict[str, str]

    def __getitem__(self, key: str) -> str:
        return self.values[key]

    def record(self) -> dict[str, Any]:
        """Which texts, from which file and place, with their sha256 (for settings and the
        transcript header; the folder is recorded apart, it says where, not what)."""
        return {"files": dict(sorted(self.files.items())),
                "texts": {key: {"file": SOURCES[key][0], "where": SOURCES[key][1],
                                "sha256": _sha256(self.values[key].encode())}
                          for key in TEXT_KEYS}}

    def skip_line(self, count: object, grid: str) -> str:
        """The harness's skip_frames line with its placeholders filled [I6]."""
        return self["skip_line"].format(count, grid)

    def turn_template(self) -> str:
        """The per-turn message as a ``turn`` prompt template ({frame}, {header}) [A3]; the
        harness's strings escaped, so a brace in them is a brace."""
        def escaped(text: str) -> str:
            return text.replace("{", "{{").replace("}", "}}")

        return ("{frame}\n\n" + escaped(AVAILABLE_ACTIONS) + "{header}\n"
                + escaped(self["action_prompt"]) + "\n" + escaped(self["response_prompt"]))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _folder(directory: str | Path) -> Path:
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise HarnessTextsError(f"--harness-texts {directory}: not a directory (give a "
                                f"checkout of the published harness, or its "
                                f"{SUBFOLDER} folder)")
    for candidate in (root / SUBFOLDER, root):
        if (candidate / _PROMPTS).is_file() or (candidate / _ENVS).is_file():
            return candidate.resolve()
    raise HarnessTextsError(f"--harness-texts {directory}: holds neither {SUBFOLDER / _PROMPTS}"
                            f" nor {_PROMPTS} (give a checkout of the published harness)")


def _literal(node: ast.AST | None) -> str | None:
    """The value of a string literal expression: a constant, a ``+`` of literals, or an
    f-string without placeholders; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [_literal(v) for v in node.values]
        texts = [p for p in parts if p is not None]
        return None if len(texts) < len(parts) else "".join(texts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or right is None else left + right
    return None


def _in_order(node: ast.AST) -> list[ast.AST]:
    """The nodes under ``node`` that have a source position, in the order of their positions."""
    found: list[tuple[tuple[int, int], ast.AST]] = []
    for n in ast.walk(node):
        if hasattr(n, "lineno") and hasattr(n, "col_offset"):
            found.append(((n.lineno, n.col_offset), n))
    return [n for _, n in sorted(found, key=lambda entry: entry[0])]


def _method(tree: ast.Module, cls: str, name: str) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return item
    return None


def _module_constant(tree: ast.Module, name: str) -> str | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                for t in node.targets):
            return _literal(node.value)
    return None


def _returned(method: ast.FunctionDef) -> str | None:
    for node in _in_order(method):
        if isinstance(node, ast.Return):
            value = _literal(node.value)
            if value is not None:
                return value
    return None


def _is_call(node: ast.AST, attribute: str, owner: str | None = None) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == attribute):
        return False
    return owner is None or (isinstance(node.func.value, ast.Name)
                             and node.func.value.id == owner)


def _added_to(method: ast.FunctionDef, attribute: str, owner: str | None,
              literal_left: bool) -> str | None:
    """The first literal added to a call of ``owner.attribute(...)``: on its right
    (``call + "..."``) or, with ``literal_left``, on its left (``"..." + call``)."""
    for node in _in_order(method):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
            continue
        if literal_left and _is_call(node.right, attribute, owner):
            value = _literal(node.left)
        elif not literal_left and _is_call(node.left, attribute, owner):
            value = _literal(node.right)
        else:
            continue
        if value is not None:
            return value
    return None


def _not_inited(test: ast.AST) -> bool:
    return (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
            and isinstance(test.operand, ast.Attribute) and test.operand.attr == "inited")


def _first_text_data(method: ast.FunctionDef) -> str | None:
    for node in _in_order(method):
        if isinstance(node, ast.If) and _not_inited(node.test):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "text_data" for t in stmt.targets):
                    value = _literal(stmt.value)
                    if value:
                        return value
    return None


def _template(node: ast.AST, placeholders: int) -> str | None:
    """An f-string with exactly ``placeholders`` plain placeholders as a ``str.format``
    template (``{0}``, ``{1}``, ...; its literal braces doubled); None for anything else."""
    if not isinstance(node, ast.JoinedStr):
        return None
    parts, index = [], 0
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value.replace("{", "{{").replace("}", "}}"))
        elif isinstance(value, ast.FormattedValue) and value.conversion == -1 \
                and value.format_spec is None:
            parts.append(f"{{{index}}}")
            index += 1
        else:
            return None
    return "".join(parts) if index == placeholders else None


def _text_data_template(method: ast.FunctionDef, placeholders: int) -> str | None:
    for node in _in_order(method):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "text_data":
                    template = _template(keyword.value, placeholders)
                    if template is not None:
                        return template
    return None


def _find(tree: ast.Module, key: str) -> str | None:
    match key:
        case "system" | "action_prompt" | "response_prompt":
            return _module_constant(tree, SOURCES[key][1])
    cls, method_name = SOURCES[key][1].split(":")[0].split(".")
    method = _method(tree, cls, method_name)
    if method is None:
        return None
    match key:
        case "interaction_intro":
            return _returned(method)
        case "interaction_grid_line":
            return _added_to(method, "get_instruction_text", "self", literal_left=False)
        case "mfp_intro":
            return _added_to(method, "dumps", "json", literal_left=True)
        case "skip_line":
            return _text_data_template(method, 2)
        case _:
            return _first_text_data(method)


def load_harness_texts(directory: str | Path) -> HarnessTexts:
    """Read every text of ``TEXT_KEYS`` from the harness checkout ``directory`` (module
    docstring); ``HarnessTextsError`` names the file and the string that is missing."""
    folder = _folder(directory)
    trees: dict[str, ast.Module] = {}
    files: dict[str, str] = {}
    for name in dict.fromkeys(source for source, _ in SOURCES.values()):
        path = folder / name
        if not path.is_file():
            raise HarnessTextsError(f"{path}: missing (--harness-texts needs "
                                    f"{', '.join(sorted({s for s, _ in SOURCES.values()}))} "
                                    f"of the published harness)")
        data = path.read_bytes()
        try:
            trees[name] = ast.parse(data.decode("utf-8"), filename=str(path))
        except (UnicodeDecodeError, SyntaxError, ValueError) as exc:
            raise HarnessTextsError(f"{path}: not readable Python source ({exc})") from None
        files[name] = _sha256(data)
    values: dict[str, str] = {}
    for key in TEXT_KEYS:
        name, where = SOURCES[key]
        value = _find(trees[name], key)
        if not value:
            raise HarnessTextsError(f"{folder / name}: no {where} found as a string literal "
                                    f"(the text '{key}' of --harness-texts)")
        values[key] = value
    return HarnessTexts(folder=str(folder), values=values, files=files)
