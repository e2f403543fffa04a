"""The package's import graph and its counts (issue 31): which package imports which, the
imports of ``llm_eval`` made inside functions, those across packages and those that reach past
a package's facade into one of its modules, the upward imports under the layer order of
tests/test_layers.py, and the import cycles among modules (tests/test_import_cycles.py).

    python benchmarks/import_graph.py                 # this checkout
    python benchmarks/import_graph.py --repo DIR      # another checkout (an older commit's
                                                      # worktree), under today's layer order

Modules of another checkout that no layer of today's order names are counted, not judged.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _layers_module():
    """tests/test_layers.py, where the layer order is written (once)."""
    spec = importlib.util.spec_from_file_location("layers_contract",
                                                  HERE / "tests" / "test_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cycles_module():
    """tests/test_import_cycles.py, where the module graph's cycles are found."""
    tests = str(HERE / "tests")
    if tests not in sys.path:   # it imports tests/test_layers.py by its basename, as pytest does
        sys.path.insert(0, tests)
    spec = importlib.util.spec_from_file_location("cycles_contract",
                                                  HERE / "tests" / "test_import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unit(module: str) -> str:
    parts = module.split(".")
    return "(root)" if len(parts) == 1 else parts[1]


def measure(repo: Path) -> dict:
    layers = _layers_module()
    roots = {"llm_eval": repo / "llm_eval", "llm_eval.adapters": repo / "adapters",
             "llm_eval.prompts": repo / "prompts", "llm_eval.recordings": repo / "transcripts"}
    roots = {prefix: root for prefix, root in roots.items() if root.is_dir()}
    modules = list(layers.modules(roots))
    known = {name for name, _ in modules}
    packages = {_unit(name) for name, path in modules if path.name == "__init__.py"}
    edges: dict[str, Counter] = defaultdict(Counter)
    counts = Counter()
    unplaced = set()
    for name, path in modules:
        found = sorted(set(layers.imports(name, path, known)))   # (line, module imported)
        top_lines = {node.lineno for node in ast.parse(path.read_text(), str(path)).body
                     if isinstance(node, ast.Import | ast.ImportFrom)}
        lines = {line for line, _ in found}   # an import statement a line
        counts["imports"] += len(lines)
        counts["function-level"] += len(lines - top_lines)
        for _, target in found:
            if _unit(target) != _unit(name):
                edges[_unit(name)][_unit(target)] += 1
                counts["cross-package"] += 1
                counts["past a facade"] += (_unit(target) in packages
                                            and len(target.split(".")) > 2)
            levels = {}
            for module in (name, target):
                try:
                    levels[module] = layers.layer_of(module)
                except AssertionError:   # a module today's order does not name
                    unplaced.add(module)
            if len(levels) == 2:
                counts["upward"] += levels[target] > levels[name]
    counts["modules in no layer"] = len(unplaced)
    contract = _cycles_module()
    found = contract.cycles(contract.module_graph(roots))
    cycles = sorted(sorted(component) for component in found)
    counts["cycles"] = len(cycles)
    return {"counts": dict(counts), "edges": {k: dict(v) for k, v in sorted(edges.items())},
            "cycles": cycles}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=HERE, help="a checkout (default: this one)")
    args = parser.parse_args(argv)
    result = measure(args.repo.resolve())
    c = result["counts"]
    print(f"{args.repo}: {c.get('imports', 0)} imports of llm_eval, "
          f"{c.get('function-level', 0)} inside functions; {c.get('cross-package', 0)} across "
          f"packages, {c.get('past a facade', 0)} past a facade; {c.get('upward', 0)} upward "
          f"under tests/test_layers.py ({c.get('modules in no layer', 0)} modules in no layer)")
    for source, targets in result["edges"].items():
        print(f"  {source}: " + ", ".join(f"{t} {n}" for t, n in sorted(targets.items())))
    print(f"{c.get('cycles', 0)} import cycles among modules (deferred imports included, "
          f"TYPE_CHECKING ones not):")
    for component in result["cycles"]:
        print(f"  {len(component)}: " + ", ".join(component))
    return 0


if __name__ == "__main__":
    sys.exit(main())
