"""Helpers of the report tests: HTML/script payloads, a hostile run written with the real
store and transcript writer, and a headless-chromium DOM dump with a parser for it."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from llm_eval.runstore import RunStore
from llm_eval.transcripts import (
    ActionEvent,
    End,
    Header,
    InfrastructureErrorEvent,
    ModelCall,
    ObservationEvent,
    PhaseEnd,
    PhaseStart,
    Score,
    TranscriptWriter,
)

SCRIPT = "<script>window.__pwned=1;document.title='PWNED'</script>"
IMG = "<img src=x onerror=\"document.title='PWNED'\">"
SVG = "</textarea><svg onload=\"document.title='PWNED'\">"
ATTR = "\"><img src=x onerror=document.title='PWNED'>"
STYLE = "</style><script>document.title='PWNED'</script>"
COMMENT = "--><script>document.title='PWNED'</script><!--"
PAYLOADS = (SCRIPT, IMG, SVG, ATTR, STYLE, COMMENT)
ALL = " ".join(PAYLOADS)


def _observation(index: int, phase: str, message: str | None = None) -> dict:
    black = [["black"] * 4 for _ in range(4)]
    black[1][2] = IMG   # a colour name is drawn, never written as text
    return {"phase": phase, "family": None if phase == "interaction" else "mfp", "step": index,
            "budget_left": 10 - index, "frame": black, "background": "black",
            "actions": [], "invalid": message, "message": message, "masked": [[0, 0]]}


def _model_call(index: int, phase: str, step: int, *, images: list[str]) -> ModelCall:
    return ModelCall(
        index=index, phase=phase, step=step, request_hash="0" * 64,
        request={"messages": [{"role": "system", "parts": [{"type": "text", "text": "sys"}]},
                              {"role": "user", "parts": [{"type": "text",
                                                          "text": "frame: " + ALL}]}]},
        response={"text": "I think " + ALL, "thinking_text": "hmm " + SCRIPT,
                  "tool_calls": [{"id": "c1", "name": IMG, "arguments": {"x": SVG},
                                  "raw_arguments": "{\"x\": \"" + ATTR + "\"}"}]},
        usage={"input_tokens": 1000 + index, "output_tokens": 50, "reasoning_tokens": 10},
        cost={"usd": 0.002}, latency_s=0.5, attempts=[{"outcome": "ok"}],
        action=None, invalid_reply="not an action: " + ALL, images=images)


def _hostile_transcript(path: Path, job_id: str, settings: dict, *, failed: bool) -> None:
    with TranscriptWriter(path) as writer:
        digest = writer.image(_tiny_png())
        writer.write(Header(job_id=job_id, run_id="hostile", settings=settings,
                            task_id=settings["task"], world="warehouse", family="mfp", seed=1))
        writer.write(PhaseStart(phase="interaction"))
        for i in range(3):
            writer.write(ObservationEvent(index=i, phase="interaction",
                                          observation=_observation(i, "interaction",
                                                                   SVG if i else None)))
            writer.write(_model_call(i, "interaction", i,
                                     images=[digest, "../../../etc/passwd", SCRIPT]))
            writer.write(ActionEvent(index=i, phase="interaction",
                                     action="<invalid reply: " + ALL + ">", valid=False,
                                     message="an action must be text: " + ALL))
        writer.write(PhaseEnd(phase="interaction", steps=3, invalid_actions=3,
                              counts={IMG: 3}, ended=STYLE))
        if failed:
            writer.write(InfrastructureErrorEvent(error_class="RateLimit",
                                                  message="provider said " + ALL))
            writer.write(End(status="infra_error", error="gave up: " + ALL))
        else:
            writer.write(Score(score=0.5, raw_reward=0.5, family="mfp"))
            writer.write(End(status="done", error=None))


def _tiny_png() -> bytes:
    from llm_eval.autumn import Frame
    from llm_eval.render import render_png

    return render_png(Frame((("red", "black"), ("black", "blue")), "black"), cell_size=8)


class _Job:
    def __init__(self, job_id: str, settings: dict) -> None:
        self.id, self.settings = job_id, settings


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def dump_dom(page: Path, profile: Path) -> str:
    """The DOM of ``page`` after loading it in headless chromium (scripts allowed to run)."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run installs the Debian package)")
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-extensions", "--disable-background-networking",
         f"--user-data-dir={profile}", "--virtual-time-budget=2000", "--dump-dom",
         page.resolve().as_uri()],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "<html" in result.stdout, result.stderr[-2000:]
    return result.stdout


class Elements(HTMLParser):
    """Every start tag of a serialised DOM with its attributes, and the title's text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.titles: list[str] = []
        self._in_title = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"
        if self._in_title:
            self.titles.append("")

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.titles[-1] += data


def write_hostile_run(tmp_path: Path) -> Path:
    """A run whose model name, task, prompt, error, transcript text and file names carry
    payloads: one done job, one infrastructure error, one failure without transcript."""
    run_dir = tmp_path / "run <b onmouseover=x>'\"&"
    settings = {"v": 1, "model": "evil/" + SCRIPT, "world": "warehouse", "family": "mfp",
                "task": "warehouse-mfp" + IMG, "seed": 1, "repeat": 0, "prompt": SVG,
                "history": ATTR, "interaction_steps": None}
    jobs = {"a1": (dict(settings), "done"),
            "b2": (dict(settings, seed=2), "infra_error"),
            "c3": (dict(settings, seed=3, model="evil/" + IMG), "failed")}
    with RunStore(run_dir / "run.sqlite") as store:
        store.add_run("hostile", "hostile " + SCRIPT, {"note": SCRIPT})
        store.add_jobs("hostile", [_Job(j, s) for j, (s, _) in jobs.items()])
        for job_id, (job_settings, status) in jobs.items():
            name = f"transcripts/{job_id}{IMG.replace('/', '')}.jsonl"
            store.start("hostile", job_id, name)
            if status == "done":
                _hostile_transcript(run_dir / name, job_id, job_settings, failed=False)
                store.finish("hostile", job_id, score=0.5, raw_reward=0.5,
                             usage={"calls": 3, "input_tokens": 3003, "output_tokens": 150,
                                    "reasoning_tokens": 30}, cost_usd=0.006)
            elif status == "infra_error":
                _hostile_transcript(run_dir / name, job_id, job_settings, failed=True)
                store.fail("hostile", job_id, "infra_error", "gave up: " + ALL)
            else:   # the transcript never got written
                store.fail("hostile", job_id, "failed", "crashed: " + ALL)
    return run_dir
