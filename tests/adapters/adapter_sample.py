"""A sample request: a system prompt, a user turn with text and a PNG, the action tools."""

from __future__ import annotations

from llm_eval.adapters import GenerationConfig, ImagePart, Message, Request, action_tools

# A fake key: tests check that it never reaches anything written.
# built at run time, so no key-shaped literal is stored; it still looks like a key to scrub()
SECRET = "-".join(("sk", "test", "SECRETKEY0123456789abcdef"))

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")

FORMS = [
    {"kind": "click", "params": [{"name": "X", "low": 0, "high": 6},
                                 {"name": "Y", "low": 0, "high": 6}], "help": "click a cell"},
    {"kind": "left", "params": [], "help": "press the left arrow"},
    {"kind": "noop", "params": [], "help": "do nothing"},
    {"kind": "reset", "params": [], "help": "restart the world"},
    {"kind": "go-to-test", "params": [], "help": "end the interaction phase"},
]


def request(config: GenerationConfig | None = None, *, history: tuple = ()) -> Request:
    return Request(
        messages=(Message.system("You explore a grid world."), *history,
                  Message.user("Frame 0. What do you do?", ImagePart.from_bytes(PNG))),
        tools=action_tools(FORMS), config=config or GenerationConfig(max_output_tokens=512))
