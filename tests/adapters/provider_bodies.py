"""Response and error bodies in the providers' real shapes; each builder checks its body by
parsing it through the SDK's own types, so a drift in our fixtures fails loudly."""

from __future__ import annotations

import json
from typing import Any

import anthropic.types
import openai.types.chat
import openai.types.responses

SIGNATURE = "EqQBCkYIBxgCKkDsignatureOfThinkingBlock0123456789abcdef=="


def _checked(model: Any, body: dict) -> dict:
    model.model_validate(body)
    return body


# --- OpenAI Responses ------------------------------------------------------------------------

def responses_body(*, calls: list[tuple[str, str, dict | str]] = (), text: str | None = None,
                   reasoning: str | None = None, model: str = "gpt-5-2025-08-07",
                   status: str = "completed", incomplete: str | None = None,
                   usage: dict | None = None) -> dict:
    output: list[dict] = []
    if reasoning is not None:
        output.append({"type": "reasoning", "id": "rs_01",
                       "summary": [{"type": "summary_text", "text": reasoning}],
                       "encrypted_content": "gAAAAABencryptedReasoning=="})
    if text is not None:
        output.append({"type": "message", "id": "msg_01", "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for i, (call_id, name, args) in enumerate(calls):
        output.append({"type": "function_call", "id": f"fc_0{i}", "call_id": call_id,
                       "name": name, "status": "completed",
                       "arguments": args if isinstance(args, str) else json.dumps(args)})
    body = {
        "id": "resp_0123", "object": "response", "created_at": 1764720000.0, "status": status,
        "model": model, "output": output, "parallel_tool_calls": False,
        "tool_choice": "required", "tools": [], "temperature": 1.0, "top_p": 1.0,
        "error": None, "instructions": None, "metadata": {},
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "usage": usage or {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 1024,
                                                   "cache_write_tokens": 0},
                           "output_tokens": 310,
                           "output_tokens_details": {"reasoning_tokens": 256},
                           "total_tokens": 1510},
    }
    return _checked(openai.types.responses.Response, body)


# --- OpenAI Chat Completions -----------------------------------------------------------------

def chat_body(*, calls: list[tuple[str, str, dict | str]] = (), text: str | None = None,
              model: str = "gpt-4.1-mini-2025-04-14", finish: str | None = None,
              usage: dict | None = None) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function",
             "function": {"name": name,
                          "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for call_id, name, args in calls]
    body = {
        "id": "chatcmpl-0123", "object": "chat.completion", "created": 1764720000,
        "model": model, "system_fingerprint": "fp_0123",
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": finish or ("tool_calls" if calls else "stop")}],
        "usage": usage or {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940,
                           "prompt_tokens_details": {"cached_tokens": 512, "audio_tokens": 0},
                           "completion_tokens_details": {"reasoning_tokens": 0,
                                                         "audio_tokens": 0}},
    }
    return _checked(openai.types.chat.ChatCompletion, body)


# --- Anthropic Messages ----------------------------------------------------------------------

def messages_body(*, calls: list[tuple[str, str, dict]] = (), text: str | None = None,
                  thinking: str | None = None, redacted: bool = False,
                  model: str = "claude-sonnet-4-5-20250929", stop: str | None = None,
                  usage: dict | None = None) -> dict:
    content: list[dict] = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking, "signature": SIGNATURE})
    if redacted:
        content.append({"type": "redacted_thinking", "data": "EmwKAhgBEgy3redactedData=="})
    if text is not None:
        content.append({"type": "text", "text": text})
    for call_id, name, args in calls:
        content.append({"type": "tool_use", "id": call_id, "name": name, "input": args})
    body = {
        "id": "msg_0123", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop or ("tool_use" if calls else "end_turn"),
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 50, "output_tokens": 400,
                           "cache_creation_input_tokens": 1000,
                           "cache_read_input_tokens": 2000,
                           "output_tokens_details": {"thinking_tokens": 300}},
    }
    return _checked(anthropic.types.Message, body)


# --- error bodies ----------------------------------------------------------------------------

def openai_error(message: str, type_: str, code: str | None = None) -> dict:
    body = {"error": {"message": message, "type": type_, "param": None, "code": code}}
    openai.types.ErrorObject.model_validate(body["error"])
    return body


def anthropic_error(type_: str, message: str) -> dict:
    body = {"type": "error", "error": {"type": type_, "message": message},
            "request_id": "req_0123"}
    anthropic.types.ErrorResponse.model_validate(body)
    return body
