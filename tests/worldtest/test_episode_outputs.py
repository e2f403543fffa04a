"""``llm-eval episode --calls FILE --record FILE`` with a model: where the files go is checked
before the first (paid) model call, a file that cannot be written at the end does not hide the
result, and a key the server echoes back reaches neither file."""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters"))

from fake_provider import ECHO_KEY, FakeProvider  # noqa: E402
from provider_bodies import chat_body  # noqa: E402

from llm_eval.agents import OracleAgent  # noqa: E402
from llm_eval.cli import main  # noqa: E402
from llm_eval.tasks.store import load_task  # noqa: E402
from llm_eval.worldtest import run_episode  # noqa: E402

SECRET = "fake-test-credential-OUTPUTKEY0123"
ARGS = {"click": ("x", "y"), "watch": ("t",), "submit": ("t",), "choose": ("k",)}


class StraightToTest:
    """Goes to the test at once, then plays as the oracle."""

    def __init__(self, task) -> None:
        self.oracle = OracleAgent(task)

    def reset(self, start) -> None:
        self.oracle.reset(start)

    def act(self, observation) -> str:
        return "go-to-test" if observation.phase == "interaction" \
            else self.oracle.act(observation)


@functools.cache
def reference_actions() -> tuple[str, ...]:
    task = load_task("warehouse", "mfp")
    return tuple(r.action for r in run_episode(task, StraightToTest(task)).records)


def reply(i: int, action: str, text: str | None = None) -> dict:
    kind, *values = action.split()
    args = dict(zip(ARGS.get(kind, ()), map(int, values)))
    return chat_body(calls=[(f"call_{i}", kind.replace("-", "_"), args)], text=text)


def episode(fake: FakeProvider, *extra: str) -> list[str]:
    return ["episode", "warehouse", "--family", "mfp", "--agent", "openai-chat/gpt-4.1-mini",
            "--base-url", fake.base_url + "/v1", *extra]


@pytest.fixture
def blocker(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    return tmp_path


@pytest.mark.parametrize("calls, record, message", [
    (".", None, "--calls {tmp}: is a directory; give a file name"),
    (None, "missing/rec.json", "--record {tmp}/missing/rec.json: the folder {tmp}/missing "
                               "does not exist"),
    ("a-file/calls.jsonl", None, "--calls {tmp}/a-file/calls.jsonl: the folder {tmp}/a-file "
                                 "is not a directory"),
    ("out.json", "out.json", "--calls and --record name the same file ({tmp}/out.json)"),
])
def test_output_paths_are_checked_before_the_first_call(blocker, capsys, monkeypatch, calls,
                                                        record, message):
    tmp = str(blocker)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    extra = [*(["--calls", os.path.normpath(f"{tmp}/{calls}")] if calls else []),
             *(["--record", os.path.normpath(f"{tmp}/{record}")] if record else [])]
    with FakeProvider() as fake:
        code = main(episode(fake, *extra))
        assert fake.seen == [], "no model call before the outputs are known to be writable"
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == f"llm-eval: error: {message.format(tmp=tmp)}\n"
    assert sorted(p.name for p in blocker.iterdir()) == ["a-file"], "nothing left behind"


def _writable(folder: str) -> bool:
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/sys") or _writable("/sys"),
                    reason="needs a folder that cannot be written in, even as root")
def test_an_unwritable_folder_is_refused_before_the_first_call(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider() as fake:
        code = main(episode(fake, "--record", "/sys/rec.json"))
        assert fake.seen == []
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("llm-eval: error: --record /sys/rec.json: cannot write in /sys: ")
    assert "read" not in err


def test_a_file_that_fails_at_the_end_does_not_hide_the_result(tmp_path, capsys, monkeypatch):
    import llm_eval.adapters.replay

    def no_space(path, data, **kw):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(llm_eval.adapters.replay, "write_atomic", no_space)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    actions = reference_actions()
    with FakeProvider() as fake:
        for i, action in enumerate(actions):
            fake.reply(reply(i, action))
        code = main(episode(fake, "--calls", str(tmp_path / "calls.jsonl"),
                            "--record", str(tmp_path / "rec.json")))
    out, err = capsys.readouterr()
    assert code == 2
    assert out.startswith("warehouse-mfp: agent openai-chat/gpt-4.1-mini (seed 1): score 1.000")
    assert err == (f"llm-eval: error: cannot write --record {tmp_path / 'rec.json'}: "
                   f"No space left on device\n")
    assert len((tmp_path / "calls.jsonl").read_text().splitlines()) == len(actions)


def test_a_key_the_server_echoes_reaches_no_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    actions = reference_actions()
    calls, record = tmp_path / "calls.jsonl", tmp_path / "rec.json"
    with FakeProvider() as fake:
        for i, action in enumerate(actions):
            body = reply(i, action, text=f"debug: called with key {ECHO_KEY}")
            body["id"] = f"chatcmpl-{ECHO_KEY}"
            fake.reply(body)
        code = main(episode(fake, "--calls", str(calls), "--record", str(record), "--json"))
        assert SECRET in json.dumps([s.headers for s in fake.seen])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["score"] == 1.0
    for path in (calls, record):
        text = path.read_text()
        assert SECRET not in text, path.name
        assert "debug: called with key [redacted]" in text, path.name

    # the scrubbed recording still replays the episode, offline and without a key
    monkeypatch.delenv("OPENAI_API_KEY")
    code = main(["episode", "warehouse", "--family", "mfp", "--agent", f"replay/{record}",
                 "--json", "--steps"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [s["action"] for s in json.loads(out)["steps"]] == list(actions)
