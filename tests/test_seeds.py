"""The degenerate-seed rule is written once (``llm_eval/seeds.py``) and every refusal gives
its reason; no other module tests ``seed % 2**32 == 0`` itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from llm_eval.autumn import Interpreter
from llm_eval.errors import AutumnSeedError
from llm_eval.seeds import DEGENERATE_SEED_REASON, SEED_MODULUS, is_degenerate_seed

REPO = Path(__file__).resolve().parent.parent


def inline_rules(path: Path) -> list[int]:
    """Lines comparing ``x % 2**32`` (or ``x % 4294967296``) with 0."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.BinOp) and \
                isinstance(node.left.op, ast.Mod):
            right = node.left.right
            power = (isinstance(right, ast.BinOp) and isinstance(right.op, ast.Pow)
                     and isinstance(right.left, ast.Constant)
                     and isinstance(right.right, ast.Constant)
                     and right.left.value ** right.right.value == SEED_MODULUS)
            if (power or (isinstance(right, ast.Constant) and right.value == SEED_MODULUS)) and \
                    any(isinstance(c, ast.Constant) and c.value == 0 for c in node.comparators):
                found.append(node.lineno)
    return found


def test_the_rule_is_written_once():
    paths = [p for top in ("llm_eval", "adapters") for p in (REPO / top).rglob("*.py")
             if "__pycache__" not in p.parts and p.name != "seeds.py"]
    assert {str(p.relative_to(REPO)): lines for p in paths if (lines := inline_rules(p))} == {}


def test_an_inline_rule_is_found(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("if seed % 2 ** 32 == 0:\n    pass\nok = seed % 7 == 0\n"
                       "if s % 4294967296 == 0:\n    pass\n")
    assert inline_rules(planted) == [1, 4]


@pytest.mark.parametrize("seed", [0, SEED_MODULUS, 3 * SEED_MODULUS])
def test_the_interpreter_refuses_a_degenerate_seed_with_the_reason(seed):
    assert is_degenerate_seed(seed) and not is_degenerate_seed(seed + 1)
    with pytest.raises(AutumnSeedError, match="every random choice return its first option"):
        Interpreter().run_script("(program (= GRID_SIZE 4))", seed=seed)
    assert "2**32" in DEGENERATE_SEED_REASON
