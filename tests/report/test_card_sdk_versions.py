"""The SDK versions a run ran with, recorded in each transcript header and read by the card.

A run writes openai's, anthropic's and litellm's versions (``importlib.metadata``) into each
header's ``versions["sdks"]``; the card shows those, not what is installed where it is made;
a header from before they were recorded still reads and replays, and the card says the SDK
versions it then shows are the ones installed here, not the run's."""

from __future__ import annotations

import gzip
import importlib.metadata
import json
import shutil
from pathlib import Path

import pytest

from llm_eval.cli import main
from llm_eval.report.card import build_cards, cards_of, format_card, group_arms
from llm_eval.sdk_versions import SDKS
from llm_eval.transcripts import TranscriptStream

RUN_VERSION = {"openai": "3.0.0-run", "anthropic": "2.0.0-run", "litellm": None}
HERE_VERSION = "9.9.9-here"


def _fake_versions(table: dict[str, str | None]):
    def version(name: str) -> str:
        if name in table:
            if table[name] is None:
                raise importlib.metadata.PackageNotFoundError(name)
            return table[name]
        return real(name)

    real = importlib.metadata.version
    return version


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """random on warehouse mfp, seeds 1 and 2, run while importlib.metadata reports
    ``RUN_VERSION`` (litellm: not installed)."""
    from llm_eval.sweep import Sweep, run_sweep

    out = tmp_path_factory.mktemp("sdk-run")
    spec = Sweep.from_data({"models": ["random"], "worlds": ["warehouse"],
                            "families": ["mfp"], "seeds": [1, 2]}, "test")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importlib.metadata, "version", _fake_versions(RUN_VERSION))
        # processes=0: the jobs run in this process, where the patch is
        assert all(r.status == "done" for r in run_sweep(spec, out, processes=0).rows)
    return out


def _transcripts(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "transcripts").glob("*.jsonl.gz"))


def _edit_header(path: Path, edit) -> None:
    """Rewrite ``path``'s header line through ``edit`` (a dict -> None), as an older or
    other program would have written it."""
    lines = gzip.decompress(path.read_bytes()).decode().splitlines(keepends=True)
    header = json.loads(lines[0])
    edit(header)
    lines[0] = json.dumps(header) + "\n"
    path.write_bytes(gzip.compress("".join(lines).encode()))


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("run.lock"))
    return copy


def test_each_header_records_the_sdk_versions_from_importlib_metadata(run_dir):
    for path in _transcripts(run_dir):
        header = TranscriptStream(path).first()
        assert header.type == "header"
        assert header.versions["sdks"] == RUN_VERSION


def test_a_real_run_records_what_is_installed(tmp_path):
    """No monkeypatch: the header holds what importlib.metadata says of this environment."""
    from llm_eval.sweep import Sweep, run_sweep

    spec = Sweep.from_data({"models": ["random"], "worlds": ["warehouse"],
                            "families": ["mfp"], "seeds": [3]}, "test")
    run_sweep(spec, tmp_path)
    (path,) = _transcripts(tmp_path)
    expected = {}
    for name in SDKS:
        try:
            expected[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            expected[name] = None
    assert TranscriptStream(path).first().versions["sdks"] == expected


def test_the_card_shows_the_recorded_versions_not_the_installed_ones(run_dir, monkeypatch,
                                                                      capsys):
    monkeypatch.setattr(importlib.metadata, "version",
                        _fake_versions({name: HERE_VERSION for name in SDKS}))
    (card,) = build_cards(run_dir)
    versions = card["versions"]
    assert versions["sdks"] == {"openai": ["3.0.0-run"], "anthropic": ["2.0.0-run"],
                                "litellm": [None]}
    assert versions["sdks_unrecorded"] == 0 and versions["headers"] == 2
    assert not set(SDKS) & set(versions["installed"])     # no fallback: nothing installed shown
    assert "sdks" not in versions["recorded"]
    text = format_card(card)
    assert ("SDK versions recorded by the run: openai: 3.0.0-run, anthropic: 2.0.0-run, "
            "litellm: not installed") in text
    assert HERE_VERSION not in text and "NOT recorded" not in text
    assert main(["card", str(run_dir), "--json"]) == 0
    (printed,) = json.loads(capsys.readouterr().out)
    assert printed["versions"]["sdks"]["openai"] == ["3.0.0-run"]
    assert HERE_VERSION not in json.dumps(printed)


def test_versions_that_differ_across_jobs_are_shown_as_such(run_dir, tmp_path):
    copy = _copy(run_dir, tmp_path)
    _edit_header(_transcripts(copy)[0],
                 lambda h: h["versions"]["sdks"].update(openai="3.1.0-run"))
    (card,) = build_cards(copy)
    assert card["versions"]["sdks"]["openai"] == ["3.0.0-run", "3.1.0-run"]
    assert "openai: 3.0.0-run and 3.1.0-run (differs across jobs)" in format_card(card)


def test_an_old_header_replays_and_the_card_labels_the_fallback(run_dir, tmp_path,
                                                                monkeypatch):
    from llm_eval.analysis.data import load_episodes
    from llm_eval.replay import replay_transcript

    copy = _copy(run_dir, tmp_path)
    old = _transcripts(copy)[0]
    _edit_header(old, lambda h: h["versions"].pop("sdks"))
    header = TranscriptStream(old).first()
    assert "sdks" not in header.versions
    assert replay_transcript(old).status == "reproduced"

    monkeypatch.setattr(importlib.metadata, "version",
                        _fake_versions({name: HERE_VERSION for name in SDKS}))
    (card,) = build_cards(copy)
    versions = card["versions"]
    assert versions["sdks_unrecorded"] == 1 and versions["headers"] == 2
    assert versions["sdks"]["openai"] == ["3.0.0-run"]        # the job that did record
    assert all(versions["installed"][name] == HERE_VERSION for name in SDKS)
    text = format_card(card)
    assert "SDK versions NOT recorded by 1 of 2 job(s)" in text
    assert (f"installed where this card was made, NOT necessarily what ran: openai: "
            f"{HERE_VERSION}") in text

    # the report's cards leave out what is installed here: the fallback is named, not shown
    (report_card,) = cards_of(group_arms(load_episodes([copy])), str(copy), installed=False)
    report_text = format_card(report_card)
    assert "SDK versions NOT recorded by 1 of 2 job(s)" in report_text
    assert HERE_VERSION not in report_text and report_card["versions"]["installed"] is None


def test_a_model_job_records_them_and_an_old_recording_replays(tmp_path, monkeypatch):
    """The demo's recorded SmolLM2 transcripts are from before SDK versions were recorded:
    one still replays, and the job run again from it (its calls answered by the recording)
    records the versions of the process that ran it."""
    from llm_eval.demo import recorded_transcripts
    from llm_eval.replay import replay_transcript, run_recorded

    recording = recorded_transcripts()[0]
    assert "sdks" not in TranscriptStream(recording).first().versions
    assert replay_transcript(recording).status == "reproduced"
    monkeypatch.setattr(importlib.metadata, "version", _fake_versions(RUN_VERSION))
    run_recorded(recording, tmp_path)
    (path,) = _transcripts(tmp_path)
    header = TranscriptStream(path).first()
    assert header.settings["model"] == TranscriptStream(recording).first().settings["model"]
    assert header.versions["sdks"] == RUN_VERSION
