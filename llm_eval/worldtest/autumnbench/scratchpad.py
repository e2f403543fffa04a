"""The harness agent's scratchpad (rule A6), as ``--protocol autumnbench`` keeps it.

The harness's agent reads two tags from every reply, with the same tag reading as the action
(A5, ``adapters.tagged``: the last tag of a name counts, its content stripped, a tag inside
another matched tag is not seen): the content of ``<scratchpad_add>`` is appended to the
scratchpad with no separator, then every occurrence of the content of ``<scratchpad_del>`` is
removed; an empty tag does nothing. The scratchpad is shown only when the history is cut
(``max_history_length`` k > 0, our ``--history K``): one user message right after the system
prompt, before the kept turns (A4). At the harness's default history (-1, our ``full``) it
is kept and never shown.

The message's words are ours (the harness's sentence is inline in its agent, not one of the
strings ``--harness-texts`` reads); what follows them is the scratchpad verbatim, as in the
harness. Under the profile the scratchpad is the ``notes`` agent tool's store when that tool is
on (``LLMAgent``), so ``notes_read`` shows what the tags wrote and the tags edit what
``notes_write`` wrote.
"""

from __future__ import annotations

from llm_eval.adapters.tools import tagged

__all__ = ["ADD", "DELETE", "update", "message_text"]

ADD, DELETE = "scratchpad_add", "scratchpad_del"

# our words; the scratchpad itself follows on the next line
_INTRO = ("Your scratchpad: what you kept with <scratchpad_add> and removed with "
          "<scratchpad_del> so far. It holds:")


def update(scratchpad: str, reply: str) -> str:
    """``scratchpad`` after the model's ``reply`` (its text as the model wrote it)."""
    tags = tagged(reply)
    add, delete = tags.get(ADD, ""), tags.get(DELETE, "")
    if add:            # the harness skips an empty (falsy) addition or deletion
        scratchpad += add
    if delete:
        scratchpad = scratchpad.replace(delete, "")
    return scratchpad


def message_text(scratchpad: str) -> str:
    """The user message that shows the scratchpad under ``--history K`` (even when empty, as
    the harness shows it)."""
    return f"{_INTRO}\n{scratchpad}"
