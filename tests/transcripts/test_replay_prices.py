"""A priced run replays with its own prices: the price each job's model was charged travels in
its transcript's header, so ``llm-eval replay`` reproduces the costs of a run priced by a price
file or inline ``prices:`` (it printed ``reproduced 0/1``, ``cost: recorded {...}, replayed
null``, before), and ``replay --prices FILE`` prices a replay with a file instead."""

from __future__ import annotations

import functools
import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters"))

from fake_provider import FakeProvider  # noqa: E402
from provider_bodies import chat_body  # noqa: E402

from llm_eval.agents import OracleAgent  # noqa: E402
from llm_eval.cli import main  # noqa: E402
from llm_eval.sweep import Sweep, run_sweep  # noqa: E402
from llm_eval.tasks.store import load_task  # noqa: E402
from llm_eval.transcripts import read_transcript  # noqa: E402
from llm_eval.worldtest import run_episode  # noqa: E402

ARGS = {"click": ("x", "y"), "watch": ("t",), "submit": ("t",), "choose": ("k",)}
PRICES = "models:\n  {model}: {{input: 3.5, output: 11, cache_read: 0.5}}\n"


@functools.cache
def oracle_actions() -> tuple[str, ...]:
    """The actions of a short hunters MFP episode: straight to the test, then the oracle's."""
    task = load_task("hunters", "mfp")

    class Straight:
        def __init__(self) -> None:
            self.oracle = OracleAgent(task)

        def reset(self, start) -> None:
            self.oracle.reset(start)

        def act(self, observation) -> str:
            return ("go-to-test" if observation.phase == "interaction"
                    else self.oracle.act(observation))

    return tuple(r.action for r in run_episode(task, Straight()).records)


def replies(fake: FakeProvider) -> None:
    for i, action in enumerate(oracle_actions()):
        kind, *values = action.split()
        args = dict(zip(ARGS.get(kind, ()), map(int, values)))
        fake.reply(chat_body(calls=[(f"call_{i}", kind.replace("-", "_"), args)]))


def priced_run(tmp_path: Path, monkeypatch, model: str, prices) -> Path:
    """A one-job run of ``model`` on the fake provider, priced by ``prices`` (a path or the
    inline data); its run directory."""
    monkeypatch.setenv("OPENAI_API_KEY", "fake-test-credential-PRICES0123")
    run_dir = tmp_path / "run"
    with FakeProvider() as fake:
        replies(fake)
        spec = Sweep.from_data({
            "models": [model], "worlds": ["hunters"], "families": ["mfp"],
            "calls": {"max_attempts": 1, "timeout": 20}, "prices": prices,
            "adapter_options": {model: {"base_url": fake.base_url + "/v1", "timeout": 5.0}}})
        (row,) = run_sweep(spec, run_dir).rows
    assert row.status == "done", row.error
    assert row.cost_usd and row.cost_usd > 0   # the prices were charged
    return run_dir


def replay(capsys, *args) -> tuple[int, list[str], str]:
    code = main(["replay", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def the_transcript(run_dir: Path) -> Path:
    (path,) = (run_dir / "transcripts").glob("*.jsonl.gz")
    return path


@pytest.mark.parametrize("model", ["openai-chat/gpt-4.1-mini",     # over LiteLLM's price
                                   "openai-chat/smollm2-135m"])    # one the map does not price
def test_a_run_priced_by_a_price_file_replays(tmp_path, monkeypatch, capsys, model):
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES.format(model=model))
    run_dir = priced_run(tmp_path, monkeypatch, model, str(prices))
    header = read_transcript(the_transcript(run_dir)).header
    assert header.versions["prices"]["model"]["source"] == f"prices file {prices}"
    prices.unlink()   # the file is not needed: the header holds the price charged
    code, out, err = replay(capsys, run_dir)
    assert (code, out[-1], err) == (0, "reproduced 1/1", "")
    code, out, _ = replay(capsys, the_transcript(run_dir))   # the transcript on its own
    assert (code, out[-1]) == (0, "reproduced 1/1")


def test_a_run_priced_inline_replays(tmp_path, monkeypatch, capsys):
    model = "openai-chat/smollm2-135m"
    data = {"models": {model: {"input": 3.5, "output": 11}}}
    run_dir = priced_run(tmp_path, monkeypatch, model, data)
    code, out, err = replay(capsys, run_dir)
    assert (code, out[-1], err) == (0, "reproduced 1/1", "")


def forget_the_price(transcript: Path) -> None:
    """Make the header as transcripts made before this change had it: the price file named,
    the price charged not recorded."""
    lines = gzip.decompress(transcript.read_bytes()).split(b"\n")
    header = json.loads(lines[0])
    del header["versions"]["prices"]["model"]
    lines[0] = json.dumps(header).encode()
    transcript.write_bytes(gzip.compress(b"\n".join(lines)))


def test_an_older_transcript_reads_its_price_file_again_or_says_what_to_give(
        tmp_path, monkeypatch, capsys):
    model = "openai-chat/smollm2-135m"
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES.format(model=model))
    run_dir = priced_run(tmp_path, monkeypatch, model, str(prices))
    forget_the_price(the_transcript(run_dir))
    # the recorded file, unchanged where it was: read again
    code, out, _ = replay(capsys, run_dir)
    assert (code, out[-1]) == (0, "reproduced 1/1")
    # moved away: the check fails naming the file and the option
    moved = prices.rename(tmp_path / "kept.yaml")
    code, out, err = replay(capsys, run_dir)
    assert (code, out[-1]) == (1, "reproduced 0/1")
    assert f"the job was priced by {prices} (sha256 " in err
    assert "give the run's prices with --prices FILE" in err
    # given with --prices: the same bytes are the run's own file, wherever they are now
    code, out, err = replay(capsys, run_dir, "--prices", moved)
    assert (code, out[-1], err) == (0, "reproduced 1/1", "")


def test_replay_prices_overrides_the_recorded_price(tmp_path, monkeypatch, capsys):
    model = "openai-chat/smollm2-135m"
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES.format(model=model))
    run_dir = priced_run(tmp_path, monkeypatch, model, str(prices))
    other = tmp_path / "other.yaml"
    other.write_text(PRICES.format(model=model).replace("3.5", "7"))
    code, out, err = replay(capsys, run_dir, "--prices", other)
    assert (code, out[-1]) == (1, "reproduced 0/1")
    assert "cost.parts.input: recorded" in err   # priced by the other file: another cost
    missing = tmp_path / "missing.yaml"
    code, out, err = replay(capsys, run_dir, "--prices", missing)
    assert code == 2 and out == [] and f"{missing}: cannot read the price file" in err
