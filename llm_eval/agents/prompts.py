"""Prompt variants: named sets of templates in ``prompts/<variant>/`` (package data).

A variant is a directory with one Markdown file per template (``TEMPLATES``): the system
prompt, the instructions of each phase (given when the phase starts; the interaction phase's
never names the test family) and ``turn.md``, the frame of every other turn. Templates use
``str.format`` named placeholders, each from the file's known set (``PLACEHOLDERS``), filled
by our code only: model text is never formatted as a template, and values are inserted
verbatim (braces in them are safe). A literal brace in a template is written ``{{`` / ``}}``.

A variant may also hold ``tools.md`` (``OPTIONAL``): how the agent tools are introduced when a
job has any (``llm_eval.agent_tools``); it is appended to the system prompt only then, and is
in ``tools_digest``, not ``digest``, so the ids of jobs without tools do not change.

``load_prompts(variant)`` validates the whole variant (every template present, every
placeholder known, the format string well formed) and raises ``PromptError`` naming the file.
``prompt_variants()`` lists the shipped variants.
"""

from __future__ import annotations

import difflib
import hashlib
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import LlmEvalError

__all__ = ["PromptSet", "PromptError", "load_prompts", "prompt_variants", "TEMPLATES", "OPTIONAL",
           "observation_header", "cells_text",
           "PLACEHOLDERS"]

PLACEHOLDERS: dict[str, frozenset[str]] = {
    "system": frozenset({"grid_size", "rendering", "answer_format"}),
    "interaction": frozenset({"budget", "actions", "grid_size"}),
    "mfp": frozenset({"budget", "actions", "mask", "masked_from", "last_frame",
                      "option_count", "recording", "options"}),
    "cd": frozenset({"budget", "actions", "declare_after"}),
    "planning": frozenset({"horizon", "actions", "goal", "goal_count"}),
    "turn": frozenset({"header", "frame"}),
}
TEMPLATES = tuple(PLACEHOLDERS)
#: templates a variant may leave out: used only by jobs that need them
OPTIONAL: dict[str, frozenset[str]] = {
    "tools": frozenset({"tools", "calling", "per_turn", "per_episode"}),
}


class PromptError(LlmEvalError):
    """A prompt variant that is missing, incomplete or malformed; names the file."""


@dataclass(frozen=True, slots=True)
class PromptSet:
    """One validated variant: ``texts[name]`` is the template of ``name`` (see TEMPLATES)."""

    variant: str
    texts: dict[str, str]

    def render(self, name: str, **values: object) -> str:
        """Fill template ``name``; every placeholder must be given (a caller's bug if not)."""
        return self.texts[name].format(**{k: str(v) for k, v in values.items()}).strip()

    @property
    def tools_digest(self) -> str | None:
        """A hash of ``tools.md`` (None without one): in the settings of jobs with tools."""
        text = self.texts.get("tools")
        if text is None:
            return None
        return hashlib.sha256(b"tools\0" + text.encode()).hexdigest()[:16]

    def check_tools(self) -> None:
        """A ``PromptError`` if the variant has no ``tools.md`` (a job with tools needs it)."""
        if "tools" not in self.texts:
            raise PromptError(f"prompt variant {self.variant!r} has no tools.md, which a job "
                              f"with agent_tools needs (placeholders: "
                              f"{', '.join(sorted(OPTIONAL['tools']))})")

    def render_tools(self, toolbox, mode: str) -> str:
        """``tools.md`` filled for ``toolbox`` (an ``AgentToolbox``) under tool ``mode``."""
        if mode == "tools":
            calling = ("They are offered as tools beside the action tools. A reply that calls "
                       "only helper tools gets their results and is asked again; the world "
                       "does not move until you take an action.")
        else:
            calling = ("Use one by writing its tag, as shown. A reply with tool tags and no "
                       "action gets the results and is asked again; the world does not move "
                       "until you take an action.")
        return self.render("tools", tools=toolbox.listing(mode), calling=calling,
                           per_turn=toolbox.caps.per_turn, per_episode=toolbox.caps.per_episode)

    @property
    def digest(self) -> str:
        """A hash of every template's text: a setting that changes results, so part of ids."""
        h = hashlib.sha256()
        for name in TEMPLATES:
            h.update(name.encode() + b"\0" + self.texts[name].encode() + b"\0")
        return h.hexdigest()[:16]


def _root() -> Path:
    return Path(str(resources.files("llm_eval.prompts")))


def prompt_variants(root: Path | None = None) -> list[str]:
    """The variants shipped (directories of ``prompts/`` holding a ``system.md``)."""
    base = root or _root()
    return sorted(p.name for p in base.iterdir() if (p / "system.md").is_file())


def _fields(text: str, path: Path) -> set[str]:
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise PromptError(f"{path}: malformed template: {exc} (write a literal brace as "
                          f"{{{{ or }}}})") from None
    names = set()
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            shown = field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            raise PromptError(f"{path}: placeholder {{{shown}}} must be a plain name like "
                              f"{{budget}}")
        names.add(field)
    return names


def load_prompts(variant: str = "default", root: Path | None = None) -> PromptSet:
    """Load and validate ``prompts/<variant>/`` (``root`` overrides the prompts directory)."""
    base = root or _root()
    directory = base / variant
    if not directory.is_dir():
        known = prompt_variants(base)
        close = difflib.get_close_matches(variant, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise PromptError(f"unknown prompt variant {variant!r}{hint} (known: "
                          f"{', '.join(known) or 'none'})")
    texts = {}
    for name in TEMPLATES:
        path = directory / f"{name}.md"
        if not path.is_file():
            raise PromptError(f"{path}: missing template (a variant needs "
                              f"{', '.join(t + '.md' for t in TEMPLATES)})")
        text = path.read_text(encoding="utf-8")
        unknown = sorted(_fields(text, path) - PLACEHOLDERS[name])
        if unknown:
            raise PromptError(f"{path}: unknown placeholder(s) "
                              f"{', '.join('{' + u + '}' for u in unknown)}; known in "
                              f"{name}.md: {', '.join(sorted(PLACEHOLDERS[name]))}")
        texts[name] = text
    for name, allowed in OPTIONAL.items():
        path = directory / f"{name}.md"
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        unknown = sorted(_fields(text, path) - allowed)
        if unknown:
            raise PromptError(f"{path}: unknown placeholder(s) "
                              f"{', '.join('{' + u + '}' for u in unknown)}; known in "
                              f"{name}.md: {', '.join(sorted(allowed))}")
        texts[name] = text
    return PromptSet(variant, texts)


def cells_text(cells) -> str:
    """Cells as the prompts write them: ``(x,y) (x,y) ...``."""
    return " ".join(f"({x},{y})" for x, y in cells)


def observation_header(obs) -> str:
    """The line above each frame shown to a model or an outside agent: the phase, the step and
    the actions left (and, by phase, the MFP frame watched and its hidden cells, the CD run
    and whether ``declare`` is allowed, the planning horizon). ``obs`` is a worldtest
    ``Observation``."""
    size = obs.frame.size
    match obs.phase:
        case "interaction":
            return (f"Interaction phase: {obs.step} actions taken, {obs.budget_left} left. "
                    f"Grid {size} x {size}.")
        case "mfp":
            last = len(obs.mfp.frames) - 1
            hidden = (" Cells shown as `transparent` are hidden: "
                      f"{cells_text(obs.masked)}." if obs.masked else "")
            return (f"Masked-frame prediction: watching frame {obs.mfp.watching} of 0..{last}"
                    f"; {obs.budget_left} actions left.{hidden}")
        case "cd":
            cd = obs.cd
            if cd.declared:
                return (f"Change detection: declared. Browsing run {cd.run}, frames "
                        f"0..{len(cd.frames) - 1}; watching frame {cd.watching}. "
                        f"{obs.budget_left} actions left.")
            allowed = ("`declare` is allowed" if cd.run_steps >= cd.declare_after
                       else f"`declare` is allowed after {cd.declare_after} steps")
            return (f"Change detection: run {cd.run}, frame {cd.run_steps} of this run; "
                    f"{allowed}; {obs.budget_left} actions left.")
        case "planning":
            return (f"Planning: {obs.step} actions taken, {obs.budget_left} left of "
                    f"{obs.planning.horizon}.")
    return f"{obs.phase}: step {obs.step}, {obs.budget_left} actions left."
