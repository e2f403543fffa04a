"""The ``python`` tool: the agent's code run by the sandbox (``sandbox.run_python``, whose
threat model is docs/sandbox.md), its result as text for the model.

This module only calls the sandbox and words its result: standard output and standard error
(each capped by the sandbox, which marks what it cut), the exit status and, when the sandbox
stopped the code, why. The code is passed to the sandbox as data and never run in this
process.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["run_python_tool", "MAX_CODE_CHARS"]

MAX_CODE_CHARS = 32_000


def _sandbox() -> Callable[..., Any]:
    from .sandbox import run_python  # the sandbox (its own module): imported when used

    return run_python


def run_python_tool(code: str, run: Callable[..., Any] | None = None) -> tuple[str, bool, dict]:
    """Run ``code`` (``run``: the sandbox's ``run_python``, or a stand-in with its interface);
    ``(the text for the model, ok, detail)``."""
    if not code.strip():
        return "error: the code is empty", False, {"exit_code": None, "stopped": "empty"}
    if len(code) > MAX_CODE_CHARS:
        return (f"error: the code has {len(code):,} characters, over the cap of "
                f"{MAX_CODE_CHARS:,}"), False, {"exit_code": None, "stopped": "too long"}
    result = (run or _sandbox())(code)
    stopped = getattr(result, "stopped", None)
    exit_code = getattr(result, "exit_code", None)
    lines = []
    if stopped:
        lines.append(f"stopped: {stopped}")
    lines.append(f"exit status: {exit_code}")
    for name in ("stdout", "stderr"):
        text = getattr(result, name, "") or ""
        cut = getattr(result, f"{name}_truncated", False)
        if text or cut:
            lines.append(f"{name}{' (cut to the cap)' if cut else ''}:\n{text}")
    ok = not stopped and exit_code == 0
    return "\n".join(lines), ok, {"exit_code": exit_code, "stopped": stopped}
