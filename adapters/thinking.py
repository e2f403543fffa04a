"""Anthropic's rules for extended thinking, shared by the two routes to Claude models (the
``anthropic`` adapter and LiteLLM to a Claude model).

- A budget is at least ``MIN_THINKING_BUDGET`` tokens (Anthropic, *Extended thinking*): a
  smaller one is refused before any call, naming ``thinking_budget`` (``check_budget``).
- Thinking counts against ``max_tokens``, which must be greater than the budget: the budget
  is added to the reply's own ``max_output_tokens`` (``max_tokens_with``).
- With thinking on, the tool choice may not force a tool: ``"auto"`` is sent, said in
  ``knobs_dropped["tool_choice"]`` (``NOT_FORCED_WITH_THINKING``).
"""

from __future__ import annotations

from .types import Fatal

__all__ = ["MIN_THINKING_BUDGET", "NOT_FORCED_WITH_THINKING", "check_budget",
           "max_tokens_with"]

MIN_THINKING_BUDGET = 1024
NOT_FORCED_WITH_THINKING = ('thinking is on, and Anthropic refuses a forced tool choice with '
                            'thinking: sent "auto", so a reply may hold no tool call')


def check_budget(budget: int, provider: str) -> None:
    """Refuse a thinking budget Anthropic cannot take, before any call is made."""
    if 0 < budget < MIN_THINKING_BUDGET:
        raise Fatal(f"bad_request: thinking_budget {budget} is below Anthropic's minimum of "
                    f"{MIN_THINKING_BUDGET} tokens: set thinking_budget to "
                    f"{MIN_THINKING_BUDGET} or more, or to 0 for thinking off",
                    reason="bad_request", provider=provider)


def max_tokens_with(max_output_tokens: int, budget: int) -> int:
    """``max_tokens`` for a reply of ``max_output_tokens`` after thinking up to ``budget``."""
    return max_output_tokens + budget
