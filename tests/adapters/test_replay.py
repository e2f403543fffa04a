"""Replay answers from a recording keyed by the canonical request hash; a mismatch is loud."""

from __future__ import annotations

import asyncio
import json

import pytest
from adapter_sample import request

from adapters import Adapter, Fatal, GenerationConfig, Response, create_adapter
from adapters.replay import RecordingAdapter
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
