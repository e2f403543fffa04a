"""benchmarks/import_graph.py: the counts of the closing note, measured on this checkout and
on a small planted one."""

from __future__ import annotations

from scripts import REPO, load_script


def _script():
    return load_script(REPO / "benchmarks" / "import_graph.py", "import_graph")


def test_this_checkout_has_no_upward_import_and_every_module_placed(capsys):
    script = _script()
    assert script.main([]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "0 upward under tests/test_layers.py (0 modules in no layer)" in first
    counts = script.measure(REPO)["counts"]
    assert counts["imports"] > counts["cross-package"] > counts["past a facade"] > 0


def test_a_planted_upward_import_and_an_unplaced_module_are_counted(tmp_path):
    pkg = tmp_path / "llm_eval"
    for sub in ("autumn", "cli", "mystery"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "autumn" / "low.py").write_text("def f():\n    from ..cli import main\n")
    (pkg / "cli" / "top.py").write_text("from ..autumn import low\nimport llm_eval.mystery\n")
    result = _script().measure(tmp_path)
    assert result["counts"]["upward"] == 1 and result["counts"]["function-level"] == 1
    assert result["counts"]["modules in no layer"] == 1   # llm_eval.mystery, not its importer
    assert result["edges"] == {"autumn": {"cli": 1}, "cli": {"autumn": 1, "mystery": 1}}
