"""Data-driven conformance tests: the cases of docs/spec/autumn.md 17.

The cases live in ``conformance/cases.yaml`` (generated from the spec by
``conformance/extract_cases.py``); adding a case means adding a row there. Each case is run
the way the spec's host loop says:

* standard:       run_script (which renders once itself), host render -> f0, then for each
                  step: inputs, step(), host render -> fK;
* render_at_end:  run_script, host render -> f0, all steps without rendering, one host
                  render -> the last frame (C21).

Exactly one host render is made per frame (C45 draws a random number on every render). It is
``render_all()`` when the case gives the exact JSON text for that frame (the grid is then
built from that JSON as in docs/spec/autumn.md 10.3), otherwise ``render_frame()``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from scripts import load_script

HERE = Path(__file__).resolve().parent
CASES_FILE = HERE / "conformance" / "cases.yaml"
EXTRACTOR = HERE / "conformance" / "extract_cases.py"

CASES: list[dict[str, Any]] = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))

ALLOWED_KEYS = {
    "id", "title", "program", "seed", "trigger", "host_loop", "steps", "legend", "frames",
    "render_json", "evaluations", "trigger_states", "host_values", "error", "spec_note", "note",
}
REQUIRED_KEYS = {"id", "title", "program", "seed", "trigger", "host_loop", "steps"}
INPUT_RE = re.compile(r"^(?:[LRUD]|C (-?\d+) (-?\d+))$")


# --------------------------------------------------------------------------- data checks


def test_case_ids_are_c01_to_c55() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), f"duplicate ids: {sorted(i for i in ids if ids.count(i) > 1)}"
    assert ids == [f"C{i:02d}" for i in range(1, 56)], ids


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_row_is_well_formed(case: dict[str, Any]) -> None:
    keys = set(case)
    assert REQUIRED_KEYS <= keys, f"missing keys {REQUIRED_KEYS - keys}"
    assert keys <= ALLOWED_KEYS, f"unknown keys {keys - ALLOWED_KEYS}"
    assert case["host_loop"] in ("standard", "render_at_end")
    assert isinstance(case["seed"], int) and isinstance(case["trigger"], str)
    for group in case["steps"]:
        for tok in group:
            assert INPUT_RE.match(tok), f"bad input {tok!r}"
    frames = case.get("frames", [])
    assert ("legend" in case) == bool(frames)
    for f in frames:
        n = len(f["rows"])
        assert all(len(r) == n for r in f["rows"]), f"frame {f['label']} is not {n}x{n}"
        assert set("".join(f["rows"])) <= set(case["legend"]), f"frame {f['label']} uses unknown chars"
    if frames:
        want = len(case["steps"]) + 1 if case["host_loop"] == "standard" else 2
        assert len(frames) == want, f"{len(frames)} frames for {len(case['steps'])} steps"
    for k, text in case.get("render_json", {}).items():
        assert isinstance(k, int)
        json.loads(text)
    if "trigger_states" in case:
        assert len(case["trigger_states"]) == len(case["steps"])
    for ev in case.get("evaluations", []):
        assert ("result" in ev) != bool(ev.get("error")), ev


def _find_spec() -> Path | None:
    cands = [os.environ.get("AUTUMN_SPEC", "")]
    root = HERE.parent.parent
    cands += [root / "AUTUMN.md", root / "docs" / "AUTUMN.md", root.parent / "shared" / "AUTUMN.md"]
    for c in cands:
        if c and Path(c).is_file():
            return Path(c)
    return None


def test_cases_yaml_matches_spec() -> None:
    """cases.yaml is exactly what extract_cases.py produces from the upstream specification
    AUTUMN.md, which docs/spec/autumn.md restates (skipped where that file is not at hand)."""
    spec = _find_spec()
    if spec is None:
        pytest.skip("AUTUMN.md not found (set AUTUMN_SPEC to its path)")
    mod = load_script(EXTRACTOR, "extract_cases")
    fresh = mod.dump(mod.extract(spec.read_text(encoding="utf-8")))
    assert fresh == CASES_FILE.read_text(encoding="utf-8"), (
        f"cases.yaml is stale; regenerate: python {EXTRACTOR.relative_to(HERE.parent.parent)} {spec}"
    )


# --------------------------------------------------------------------------- helpers


def grid_from_json(text: str, background: str) -> list[list[str]]:
    """The text grid of docs/spec/autumn.md 10.3, built from render_all() output."""
    data = json.loads(text)
    n = data["GRID_SIZE"]
    grid = [[background for _ in range(n)] for _ in range(n)]
    for name, cells in data.items():
        if name == "GRID_SIZE":
            continue
        for cell in cells:
            x, y = cell["position"]["x"], cell["position"]["y"]
            if 0 <= x < n and 0 <= y < n:
                grid[y][x] = cell["color"].lower()
    return grid


def expected_grid(rows: list[str], legend: dict[str, str]) -> list[list[str]]:
    return [[legend[ch] for ch in row] for row in rows]


def describe_mismatch(label: str, exp: list[list[str]], act: list[list[str]], legend: dict[str, str]) -> str:
    """Expected and actual grids side by side as legend characters, differing cells marked."""
    rev: dict[str, str] = {}
    for ch, colour in legend.items():
        rev.setdefault(colour, ch)
    extra: dict[str, str] = {}
    spare = iter("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    def ch(colour: str) -> str:
        if colour in rev:
            return rev[colour]
        if colour not in extra:
            extra[colour] = next(spare, "?")
        return extra[colour]

    act_rows = ["".join(ch(c) for c in row) for row in act]
    exp_rows = ["".join(ch(c) for c in row) for row in exp]
    h = max(len(exp_rows), len(act_rows))
    w = max([len(r) for r in exp_rows + act_rows] + [8])
    out = [f"frame {label}: expected vs actual ({len(exp)}x{len(exp[0]) if exp else 0} vs "
           f"{len(act)}x{len(act[0]) if act else 0})",
           f"  {'expected':<{w}}   {'actual':<{w}}   diff"]
    for i in range(h):
        e = exp_rows[i] if i < len(exp_rows) else ""
        a = act_rows[i] if i < len(act_rows) else ""
        diff = "".join(
            "." if j < len(e) and j < len(a) and e[j] == a[j] else "X" for j in range(max(len(e), len(a)))
        )
        out.append(f"  {e:<{w}}   {a:<{w}}   {diff}")
    key = ", ".join(f"{k!r}={v}" for k, v in legend.items())
    if extra:
        key += "; not in legend: " + ", ".join(f"{k!r}={v}" for v, k in extra.items())
    out.append(f"  legend: {key}")
    return "\n".join(out)


def apply_inputs(it: Any, group: list[str]) -> None:
    for tok in group:
        m = INPUT_RE.match(tok)
        assert m, f"bad input {tok!r}"
        if tok == "L":
            it.left()
        elif tok == "R":
            it.right()
        elif tok == "U":
            it.up()
        elif tok == "D":
            it.down()
        else:
            it.click(int(m.group(1)), int(m.group(2)))


def step_label(k: int, group: list[str]) -> str:
    return f"f{k}:" + ("+".join(t.replace(" ", "") for t in group) if group else ".")


# --------------------------------------------------------------------------- the cases


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_conformance(case: dict[str, Any]) -> None:
    from llm_eval.autumn import Interpreter
    from llm_eval.errors import AutumnError, AutumnRuntimeError

    cid = case["id"]
    steps: list[list[str]] = case["steps"]
    legend: dict[str, str] = case.get("legend", {})
    frames: list[dict[str, Any]] = case.get("frames", [])
    render_json: dict[int, str] = case.get("render_json", {})
    err = case.get("error")
    failures: list[str] = []

    def fail_now(what: str, exc: BaseException) -> None:
        msg = "\n\n".join(failures + [f"{what} raised {type(exc).__name__}: {exc}"])
        raise AssertionError(f"{cid}: {msg}") from exc

    it = Interpreter()
    try:
        it.run_script(case["program"], trigger=case["trigger"], seed=case["seed"], allow_degenerate_seed=True)
    except Exception as exc:  # noqa: BLE001 - report with context
        fail_now("run_script", exc)

    def host_render(k: int, label: str) -> None:
        """Exactly one host render for frame k, then compare with the expectation."""
        try:
            if k in render_json:
                text = it.render_all()
                if text != render_json[k]:
                    failures.append(
                        f"frame {label}: render_all() text differs\n  expected: {render_json[k]}\n"
                        f"  actual:   {text}"
                    )
                grid = grid_from_json(text, it.get_background())
            else:
                grid = it.render_frame().to_rows()
        except Exception as exc:  # noqa: BLE001
            fail_now(f"render for frame {label}", exc)
        if frames:
            fr = frames[k] if case["host_loop"] == "standard" else frames[0 if k == 0 else -1]
            assert fr["label"] == label or case["host_loop"] == "render_at_end", (fr["label"], label)
            exp = expected_grid(fr["rows"], legend)
            if [list(r) for r in grid] != exp:
                failures.append(describe_mismatch(fr["label"], exp, [list(r) for r in grid], legend))
        if k == 0 and "grid_size" in case.get("host_values", {}):
            if len(grid) != case["host_values"]["grid_size"]:
                failures.append(f"grid size: expected {case['host_values']['grid_size']}, actual {len(grid)}")

    host_render(0, "f0")

    hv = case.get("host_values", {})
    if "background" in hv and it.get_background() != hv["background"]:
        failures.append(f"get_background(): expected {hv['background']!r}, actual {it.get_background()!r}")
    if "frame_rate" in hv and it.get_frame_rate() != hv["frame_rate"]:
        failures.append(f"get_frame_rate(): expected {hv['frame_rate']!r}, actual {it.get_frame_rate()!r}")

    for k, group in enumerate(steps, 1):
        label = step_label(k, group)
        apply_inputs(it, group)
        if err and err["step"] == k:
            try:
                it.step()
            except AutumnRuntimeError as exc:
                message = str(exc)
            except Exception as exc:  # noqa: BLE001
                fail_now(f"step {k} ({label}), expected AutumnRuntimeError,", exc)
            else:
                failures.append(
                    f"step {k} ({label}): expected AutumnRuntimeError "
                    f"(reference: {err['reference_message']!r}), but step() returned normally"
                )
                break
            if err.get("message_contains", "") not in message:
                failures.append(
                    f"step {k}: error message {message!r} does not contain {err['message_contains']!r} "
                    f"(reference: {err['reference_message']!r})"
                )
            break
        try:
            it.step()
        except Exception as exc:  # noqa: BLE001
            fail_now(f"step {k} ({label})", exc)
        if "trigger_states" in case:
            want = case["trigger_states"][k - 1]
            got = it.get_trigger_state()
            if got is not want:
                failures.append(f"get_trigger_state() after step {k}: expected {want}, actual {got!r}")
        if case["host_loop"] == "standard":
            host_render(k, label)
    else:
        if case["host_loop"] == "render_at_end":
            host_render(len(steps), "final")

    for ev in case.get("evaluations", []):
        expr = ev["expr"]
        if ev.get("error"):
            try:
                got = it.evaluate_to_string(expr)
            except AutumnError:
                continue
            except Exception as exc:  # noqa: BLE001
                failures.append(f"evaluate_to_string({expr!r}): expected AutumnError, got {type(exc).__name__}: {exc}")
                continue
            failures.append(
                f"evaluate_to_string({expr!r}): expected an AutumnError "
                f"(reference: {ev.get('reference_message')}), returned {got!r}"
            )
        else:
            try:
                got = it.evaluate_to_string(expr)
            except Exception as exc:  # noqa: BLE001
                failures.append(
                    f"evaluate_to_string({expr!r}): expected {ev['result']!r}, raised {type(exc).__name__}: {exc}"
                )
                continue
            if got != ev["result"]:
                failures.append(f"evaluate_to_string({expr!r}):\n  expected: {ev['result']}\n  actual:   {got}")

    if failures:
        pytest.fail(f"{cid} ({case['title']}):\n\n" + "\n\n".join(failures), pytrace=False)
