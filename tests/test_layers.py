"""The layering contract: a module imports only from its own layer or the layers below, at
module level or inside a function (a deferred import is a dependency all the same). The
order is written once, here, lowest first; docs/architecture.md describes it. An entry names
a package or a module of ``llm_eval`` (the root folders ``adapters/``, ``prompts/`` and
``transcripts/`` are ``llm_eval.adapters``, ``llm_eval.prompts`` and ``llm_eval.recordings``);
a module belongs to the most specific entry that contains it."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LAYERS: tuple[tuple[str, ...], ...] = (
    # foundations: errors, quoting, atomic files, cache folders, argument types, worker processes, the
    # garbage collector's settings
    ("llm_eval", "errors", "quoting", "lazy", "atomic", "cachedirs", "argtypes", "bounded_yaml",
     "sdk_versions", "parallel", "seeds", "vocabulary", "gcpolicy"),
    # the interpreter; prices; the run store
    ("autumn", "pricing", "runstore"),
    # actions, renderings, provider adapters and the one retry layer, transcripts, prompt texts
    ("actions", "render", "adapters", "calls", "transcripts", "runlock", "prompts",
     "recordings", "agents.prompts"),
    # worlds; the tools an agent may be given
    ("worlds", "agent_tools"),
    # task files: their models, store, specs and families
    ("tasks",),
    # the WorldTest phases and episode runner, the agent interface, suites
    ("worldtest", "agents.base", "suites"),
    # the agents; the dice (a world's generator redrawn; the dice-blind planner uses the
    # agents' search, the simulator the redraws)
    ("agents", "tasks.dice"),
    # building and checking tasks, which plays episodes with the agents, and the reports kept
    ("tasks.cd", "tasks.validate", "tasks.report_cache", "tasks.generate",
     "tasks.autumnbench_import"),
    # sweeps, replay, the provider check; the statistics a price estimate uses
    ("sweep", "replay", "probe", "analysis.stats", "analysis.data"),
    # analysis, then the report and the demo
    ("analysis",),
    ("report", "demo"),
    # people in the browser, outside agents, test doubles
    ("serve", "mcp", "testing"),
    # the command line: the root parser and one module per command
    ("cli", "__main__"),
)

ROOTS = {"llm_eval": REPO / "llm_eval", "llm_eval.adapters": REPO / "adapters",
         "llm_eval.prompts": REPO / "prompts", "llm_eval.recordings": REPO / "transcripts"}
LINKED = {"adapters", "prompts", "recordings"}   # llm_eval/<name> links to a root folder


def layer_of(module: str, layers=LAYERS) -> int:
    """The layer of ``llm_eval.<...>`` ``module``: its most specific entry's."""
    parts = module.split(".")[1:] or ["llm_eval"]
    best, best_len = None, -1
    for level, entries in enumerate(layers):
        for entry in entries:
            names = entry.split(".")
            if parts[:len(names)] == names and len(names) > best_len:
                best, best_len = level, len(names)
    if best is None:
        raise AssertionError(f"{module}: in no layer of tests/test_layers.py")
    return best


def modules(roots=ROOTS):
    """(module name, path) of every Python module of the installed package."""
    for prefix, root in roots.items():
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root)
            if "__pycache__" in rel.parts or (prefix == "llm_eval" and rel.parts[0] in LINKED):
                continue
            parts = rel.with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join((prefix, *parts)), path


def imports(module: str, path: Path, known: set[str]):
    """(line, imported module) of every import of ``llm_eval`` in a module, deferred ones and
    ``TYPE_CHECKING`` ones included; ``from P import x`` imports the module ``P.x`` when there
    is one (``known``), else ``P``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            if target == "llm_eval" or target.startswith("llm_eval."):
                yield node.lineno, target


def upward_imports(roots=ROOTS, layers=LAYERS) -> list[str]:
    found = []
    everything = list(modules(roots))
    known = {module for module, _ in everything}
    for module, path in everything:
        mine = layer_of(module, layers)
        for line, target in sorted(set(imports(module, path, known))):
            if layer_of(target, layers) > mine:
                found.append(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}"
                             f":{line}: {module} (layer {mine}) imports {target} "
                             f"(layer {layer_of(target, layers)})")
    return found


def test_no_module_imports_from_a_higher_layer():
    assert upward_imports() == []


def test_every_module_is_in_a_layer():
    assert [m for m, _ in modules() if not _in_some_layer(m)] == []


def _in_some_layer(module: str) -> bool:
    try:
        layer_of(module)
    except AssertionError:
        return False
    return True


def test_an_upward_import_is_found_deferred_or_not(tmp_path):
    """A planted violation: a low module importing a higher one, at module level, inside a
    function and relatively; and an import of its own layer or below, which is allowed."""
    pkg = tmp_path / "llm_eval"
    (pkg / "low").mkdir(parents=True)
    (pkg / "high").mkdir()
    for init in (pkg / "__init__.py", pkg / "low" / "__init__.py", pkg / "high" / "__init__.py"):
        init.write_text("")
    (pkg / "low" / "a.py").write_text(
        "from llm_eval.high import b\n"
        "def f():\n    from ..high.b import g\n"
        "from . import c\nfrom llm_eval import low\n"
        "import llm_eval.high\n")
    (pkg / "high" / "b.py").write_text("from ..low import a\n")
    layers = (("llm_eval", "low"), ("high",))
    found = upward_imports({"llm_eval": pkg}, layers)
    assert [f.split(":", 2)[1:] for f in found] == [
        ["1", " llm_eval.low.a (layer 0) imports llm_eval.high.b (layer 1)"],
        ["3", " llm_eval.low.a (layer 0) imports llm_eval.high.b (layer 1)"],
        ["6", " llm_eval.low.a (layer 0) imports llm_eval.high (layer 1)"]]
    assert upward_imports({"llm_eval": pkg}, (("llm_eval", "low", "high"),)) == []
