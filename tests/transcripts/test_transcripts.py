"""Transcript events round-trip, the version is checked, a torn last line is tolerated,
images are stored once by hash, and a whole episode streams into a readable transcript."""

from __future__ import annotations

import gzip
import json

import pytest

from llm_eval.agents import make_agent
from llm_eval.tasks.store import load_task
from llm_eval.transcripts import (
    SCHEMA_VERSION,
    ActionEvent,
    End,
    EpisodeRecorder,
    Header,
    InfrastructureErrorEvent,
    ModelCall,
    ObservationEvent,
    PhaseEnd,
    PhaseStart,
    Score,
    TranscriptError,
    TranscriptWriter,
    parse_event,
    read_transcript,
)
from llm_eval.worldtest import run_episode

EVENTS = [
    Header(job_id="j1", run_id="r1", settings={"model": "random", "seed": 1}, task_id="w-mfp",
           world="w", family="mfp", seed=7, program_sha256="ab" * 32,
           versions={"llm_eval": "0.1.0"}),
    PhaseStart(phase="interaction"),
    ObservationEvent(index=0, phase="interaction", observation={"frame": [["black"]]}),
    ModelCall(index=0, phase="interaction", step=0, request_hash="h", request={"messages": []},
              response={"text": "x"}, usage={"input_tokens": 3}, cost={"usd": 0.1},
              latency_s=0.5, attempts=[{"number": 1, "outcome": "ok"}], action="left",
              images=["c" * 64]),
    ActionEvent(index=0, phase="interaction", action="left", valid=True),
    PhaseEnd(phase="interaction", steps=1, invalid_actions=0, counts={"left": 1},
             ended="terminated"),
    Score(score=0.5, raw_reward=0.5, family="mfp"),
    InfrastructureErrorEvent(error_class="InfrastructureError", message="gave up",
                             provider="openai", attempts=[{"number": 1}]),
    End(status="done"),
]


def test_every_event_round_trips_through_json():
    for event in EVENTS:
        data = json.loads(event.model_dump_json())
        assert data["schema_version"] == SCHEMA_VERSION and data["type"] == event.type
        assert parse_event(data) == event


def test_a_transcript_file_round_trips(tmp_path):
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path, fsync=True) as writer:
        for event in EVENTS:
            writer.write(event)
    transcript = read_transcript(path)
    assert list(transcript.events) == EVENTS
    assert transcript.torn is None and transcript.complete
    assert transcript.header.job_id == "j1" and len(transcript.of_type("action")) == 1


def test_another_schema_version_is_refused_naming_file_and_line(tmp_path):
    path = tmp_path / "t.jsonl"
    data = json.loads(EVENTS[1].model_dump_json())
    path.write_text(json.dumps(json.loads(EVENTS[0].model_dump_json())) + "\n"
                    + json.dumps({**data, "schema_version": 3}) + "\n")
    with pytest.raises(TranscriptError, match=r"t\.jsonl:2: schema_version 3 is not supported "
                                              r"\(this program reads 1 and 2\)"):
        read_transcript(path)


def test_a_torn_last_line_is_tolerated_and_reported(tmp_path):
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path) as writer:
        for event in EVENTS[:3]:
            writer.write(event)
    full = path.read_text()
    path.write_text(full + EVENTS[3].model_dump_json()[:40])   # a crash mid-write
    transcript = read_transcript(path)
    assert list(transcript.events) == EVENTS[:3]
    assert transcript.torn == 4 and not transcript.complete


def test_a_bad_line_in_the_middle_names_file_and_line(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = [EVENTS[0].model_dump_json(), "{not json", EVENTS[1].model_dump_json()]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TranscriptError, match=r"t\.jsonl:2: not a JSON line"):
        read_transcript(path)
    bad = json.loads(EVENTS[4].model_dump_json())
    del bad["valid"]
    path.write_text(EVENTS[0].model_dump_json() + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(TranscriptError, match=r"t\.jsonl:2: invalid 'action' event: valid"):
        read_transcript(path)


def test_images_are_stored_once_by_content_hash(tmp_path):
    a = TranscriptWriter(tmp_path / "a.jsonl")
    b = TranscriptWriter(tmp_path / "b.jsonl")
    png = b"\x89PNG\r\n\x1a\nfake image bytes"
    h1, h2, h3 = a.image(png), a.image(png), b.image(png)
    other = b.image(png + b"!")
    a.close(), b.close()
    assert h1 == h2 == h3 != other
    files = sorted(p.name for p in (tmp_path / "images").iterdir())
    assert files == sorted([f"{h1}.png", f"{other}.png"])
    assert (tmp_path / "images" / f"{h1}.png").read_bytes() == png


@pytest.mark.parametrize("agent_name", ["random", "oracle"])
def test_an_episode_streams_into_its_transcript(tmp_path, agent_name):
    task = load_task("warehouse", "mfp")
    path = tmp_path / "episode.jsonl"
    with TranscriptWriter(path) as writer:
        recorder = EpisodeRecorder(writer)
        writer.write(Header(job_id="j", settings={}, task_id=task.id, world=task.world,
                            family=task.family, seed=task.seed))
        result = run_episode(task, make_agent(agent_name, task, seed=3), interaction_steps=8,
                             observer=recorder.observer)
        recorder.score(result)
        recorder.end("done")
    transcript = read_transcript(path)
    kinds = [e.type for e in transcript.events]
    assert kinds[:2] == ["header", "phase_start"] and kinds[-2:] == ["score", "end"]
    assert [e.phase for e in transcript.of_type("phase_start")] == ["interaction", "mfp"]
    actions = transcript.of_type("action")
    assert [a.action for a in actions] == [r.action for r in result.records]
    assert [a.valid for a in actions] == [r.valid for r in result.records]
    observations = transcript.of_type("observation")
    assert [o.observation for o in observations] == [r.observation.to_dict()
                                                     for r in result.records]
    ends = transcript.of_type("phase_end")
    assert [e.steps for e in ends] == [result.interaction.steps, result.test.steps]
    assert transcript.of_type("score")[0].score == result.score


def test_a_compressed_transcript_round_trips_and_plain_and_gzip_read_alike(tmp_path):
    for name in ("t.jsonl", "t.jsonl.gz"):
        with TranscriptWriter(tmp_path / name) as writer:
            for event in EVENTS:
                writer.write(event)
    assert (tmp_path / "t.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress((tmp_path / "t.jsonl.gz").read_bytes()) == \
        (tmp_path / "t.jsonl").read_bytes()
    assert read_transcript(tmp_path / "t.jsonl.gz").events == read_transcript(
        tmp_path / "t.jsonl").events == tuple(EVENTS)


def test_a_torn_compressed_transcript_reads_up_to_the_tear(tmp_path):
    path = tmp_path / "t.jsonl.gz"
    writer = TranscriptWriter(path)   # never closed: a crash leaves no gzip trailer
    sizes = []
    for event in EVENTS:
        writer.write(event)
        sizes.append(path.stat().st_size)
    whole = path.read_bytes()
    for n in range(1, len(EVENTS)):   # every event is readable as soon as it is written
        path.write_bytes(whole[:sizes[n - 1]])
        transcript = read_transcript(path)
        assert list(transcript.events) == EVENTS[:n] and transcript.torn is None
        path.write_bytes(whole[:(sizes[n - 1] + sizes[n]) // 2])   # cut inside the next one
        transcript = read_transcript(path)
        assert list(transcript.events) == EVENTS[:n]
        assert transcript.torn in (None, n + 1)   # a part of the line, or none of it yet
    writer.close()


def test_a_corrupt_compressed_stream_names_the_file_and_line(tmp_path):
    path = tmp_path / "t.jsonl.gz"
    with TranscriptWriter(path) as writer:
        for event in EVENTS:
            writer.write(event)
    data = bytearray(path.read_bytes())
    data[len(data) // 2:len(data) // 2 + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    with pytest.raises(TranscriptError, match=r"t\.jsonl\.gz:\d+: "):
        read_transcript(path)
