"""Long LLM episodes (the transcript benchmark's zero-latency fake model through the real
OpenAI Chat adapter and SDK): a transcript grows linearly, stores each call's requests so
that what was sent is rebuilt exactly, replays exactly from its compressed file, and a reply
over the cap is stored cut and still replays, flagged; a transcript of the first schema
(plain, every request whole) still reads and replays."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
from scripts import load_script

from llm_eval.replay import replay_transcript
from llm_eval.transcripts import CAP_CHARS, TranscriptStream, read_transcript

REPO = Path(__file__).resolve().parents[2]
bench = load_script(REPO / "benchmarks" / "transcripts.py", "transcript_bench")


def canonical_hash(request: dict) -> str:
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_bytes_per_call_stay_flat_as_the_episode_grows(tmp_path):
    per_call = {}
    for steps in (20, 80):
        path = tmp_path / f"{steps}.jsonl.gz"
        outcome = bench.play(steps, path)
        calls = outcome.usage["calls"]
        per_call[steps] = (path.stat().st_size / calls,
                           len(gzip.decompress(path.read_bytes())) / calls)
    (small, small_raw), (large, large_raw) = per_call[20], per_call[80]
    assert large <= 1.1 * small, per_call          # on disk
    assert large_raw <= 1.1 * small_raw, per_call  # and as JSON lines
    assert large < 1_000   # a call costs hundreds of bytes, not the whole history again


def test_what_was_sent_is_rebuilt_exactly(tmp_path):
    bodies: list[dict] = []

    def reply(body: dict) -> dict:
        bodies.append(body)
        return bench.completion(body)

    path = tmp_path / "t.jsonl.gz"
    bench.play(30, path, reply=reply)
    stored = [e for e in TranscriptStream(path, expand=False) if e.type == "model_call"]
    assert stored[0].request is not None
    assert all(c.request is None and c.request_patch["base"] == c.index - 1 and
               c.raw_request_patch is not None for c in stored[1:])
    calls = [e for e in TranscriptStream(path) if e.type == "model_call"]
    assert len(calls) == len(bodies) > 30
    for call, body in zip(calls, bodies):
        assert call.response["raw_request"] == body          # the provider's request body
        assert canonical_hash(call.request) == call.request_hash   # the typed request
        assert call.request_patch is None and call.raw_request_patch is None


@pytest.mark.parametrize("history", ["full", 3])
def test_a_long_compressed_transcript_replays_exactly(tmp_path, history):
    path = tmp_path / "t.jsonl.gz"
    bench.play(60, path, history=history)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    result = replay_transcript(path)
    assert result.status == "reproduced" and result.detail == "", result.detail


def test_a_reply_over_the_cap_is_stored_cut_and_replays_flagged(tmp_path):
    long_text = "".join(f"thought {i}: nothing yet\n" for i in range(40_000))   # ~1 MB

    def reply(body: dict) -> dict:
        answer = bench.completion(body)
        if len(body["messages"]) == 8:   # the fourth call (index 3) answers with a huge text
            answer["choices"][0]["message"]["content"] = long_text
        return answer

    path = tmp_path / "t.jsonl.gz"
    bench.play(12, path, reply=reply)
    assert len(gzip.decompress(path.read_bytes())) < 600_000   # not 1 MB, let alone 4 copies
    transcript = read_transcript(path)
    calls = transcript.of_type("model_call")
    cut = calls[3]
    assert [c["path"] for c in cut.truncated] == ["response.text",
                                                  "response.raw_response.choices[0].message"
                                                  ".content"]
    digest = hashlib.sha256(long_text.encode()).hexdigest()
    assert all(c["length"] == len(long_text) and c["sha256"] == digest for c in cut.truncated)
    text = cut.response["text"]
    assert len(text) <= CAP_CHARS and digest in text and text.startswith(long_text[:1000])
    assert calls[4].truncated and not calls[5].truncated   # re-sent once, then copied
    # the request re-sending the reply lost text: its hash is of what was really sent
    assert canonical_hash(calls[4].request) != calls[4].request_hash

    result = replay_transcript(path)
    assert result.status == "reproduced", result.detail
    assert "1 model reply stored cut to the cap, replayed cut" in result.detail
    assert "request(s) matched on their stored (cut) form" in result.detail


SCHEMA_1 = Path(__file__).parent / "data" / "schema1-smollm2-openai-chat-warehouse-planning.jsonl"


def test_a_schema_1_transcript_still_reads_whole():
    """A transcript as the first schema wrote it (the SmolLM2 episode shipped until it was
    re-recorded): plain JSON lines, every request whole."""
    events = list(TranscriptStream(SCHEMA_1))
    assert {e.schema_version for e in events} == {1}
    calls = [e for e in events if e.type == "model_call"]
    assert calls and all(c.request_patch is None and not c.truncated for c in calls)
    assert all(canonical_hash(c.request) == c.request_hash for c in calls)
    assert all(c.response["raw_request"]["messages"] for c in calls)
    assert events == list(TranscriptStream(SCHEMA_1, expand=False))


def as_schema_1(path: Path, out: Path) -> Path:
    """The transcript at ``path`` rewritten as the first schema wrote it (plain, whole)."""
    lines = []
    for event in TranscriptStream(path):
        data = event.model_dump(mode="json") | {"schema_version": 1}
        if event.type == "model_call":
            for key in ("request_patch", "raw_request_patch", "truncated"):
                del data[key]
        lines.append(json.dumps(data) + "\n")
    out.write_text("".join(lines))
    return out


def test_a_schema_1_transcript_replays_into_schema_2(tmp_path):
    bench.play(30, tmp_path / "t.jsonl.gz")
    old = as_schema_1(tmp_path / "t.jsonl.gz", tmp_path / "old.jsonl")
    assert b'"request_patch"' not in old.read_bytes()
    result = replay_transcript(old)
    assert result.status == "reproduced" and result.detail == "", result.detail
