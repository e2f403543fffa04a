"""Replay answers from a recording keyed by the canonical request hash; a mismatch is loud."""

from __future__ import annotations

import asyncio
import json

import pytest
from adapter_sample import request

from llm_eval.adapters import Adapter, Fatal, GenerationConfig, Response, create_adapter
from llm_eval.adapters.replay import RecordingAdapter, RecordingError
from llm_eval.calls import FatalProviderError, call_sync


class Counting(Adapter):
    provider = "counting"

    def __init__(self) -> None:
        super().__init__("m")
        self.n = 0

    async def complete(self, req):
        self.n += 1
        return Response(provider="counting", model_requested="m", model="m-1",
                        text=f"answer {self.n}")


def test_record_then_replay(tmp_path):
    path = tmp_path / "calls.json"
    recorder = RecordingAdapter(Counting(), path)
    first = asyncio.run(recorder.complete(request()))
    again = asyncio.run(recorder.complete(request()))
    other = asyncio.run(recorder.complete(request(GenerationConfig(seed=5))))
    recorder.save()

    replay = create_adapter(f"replay/{path}")
    assert asyncio.run(replay.complete(request())) == first
    assert asyncio.run(replay.complete(request())) == again
    assert asyncio.run(replay.complete(request(GenerationConfig(seed=5)))) == other


def test_hash_ignores_metadata_only(tmp_path):
    a = request()
    b = a.model_copy(update={"metadata": {"job": "x", "time": 1}})
    c = request(GenerationConfig(temperature=0.5))
    assert a.canonical_hash() == b.canonical_hash() != c.canonical_hash()


def test_mismatch_fails_loudly(tmp_path):
    path = tmp_path / "calls.json"
    path.write_text(json.dumps({"version": 1, "calls": {}}))
    replay = create_adapter(f"replay/{path}")
    with pytest.raises(Fatal, match="replay mismatch"):
        asyncio.run(replay.complete(request()))
    with pytest.raises(FatalProviderError) as caught:
        call_sync(replay, request())
    assert caught.value.reason == "replay_mismatch" and len(caught.value.attempts) == 1


def test_unreadable_recording(tmp_path):
    with pytest.raises(Fatal, match="cannot read recording"):
        create_adapter(f"replay/{tmp_path / 'missing.json'}")
    (tmp_path / "old.json").write_text('{"version": 0}')
    with pytest.raises(Fatal, match="version-1"):
        create_adapter(f"replay/{tmp_path / 'old.json'}")


@pytest.mark.parametrize("content, line, message", [
    (b'{"version": 1,\n "calls": {}}\n\x89PNG\r\n\x1a\n\x00\x00\xff', 3,
     r"not a recording: not UTF-8 text \(byte 29: b'\\x89'\)"),
    (b'{"version": 1,\n "calls": {\n', 3, r"not a recording: not JSON \(Expecting property "
                                          r"name enclosed in double quotes at column 1\)"),
    (b'{"version": 1,\n "calls": ["a", "b"]}', 2,
     "calls: expected an object of request hashes, got list"),
    (b'{"version": 1, "calls": {\n "ab12": {"provider": "p", "model_requested": "m", '
     b'"model": "m"},\n "cd34": [{"text": "hi"}]}}', 3,
     r"the answer to request cd34... is not a response: provider: Field required"),
    (b'{"version": 1, "calls": {\n "ab12": "an answer"}}', 2,
     r"the answer to request ab12... is not a response: \(answer\): Input should be a valid "
     r"dictionary"),
    (b'\n["version", 1]', None, "not a version-1 recording"),
])
def test_a_recording_that_cannot_be_read_names_the_file_and_line(tmp_path, content, line,
                                                                  message):
    path = tmp_path / "rec.json"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=message) as caught:
        create_adapter(f"replay/{path}")
    error = caught.value
    assert (error.path, error.line, error.reason) == (path, line, "replay_file")
    where = f"{path}:{line}: " if line else f"{path}: "
    assert str(error).startswith(f"replay: {where}")


def test_the_command_line_names_a_bad_recording(tmp_path, capsys):
    from llm_eval.cli import main

    path = tmp_path / "rec.json"
    path.write_bytes(b"\x00\x01binary\xff")
    code = main(["episode", "warehouse", "--family", "mfp", "--agent", f"replay/{path}"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err == (f"llm-eval: error: replay: {path}:1: not a recording: not UTF-8 text "
                   f"(byte 8: b'\\xff')\n")
