"""The report of a real random + oracle run: numbers equal the store's, nothing to fetch,
every image decodes; the command writes the file."""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import re
import shutil
from collections import defaultdict

from PIL import Image

from llm_eval.cli.report import add_report_parser
from llm_eval.report import ViewerLimits, build_report
from llm_eval.report.page import TITLE
from llm_eval.runstore import RunStore
from llm_eval.transcripts import transcript_files

CELL = re.compile(r'<td class="num" data-mean="([0-9.]+)" data-n="(\d+)" '
                  r'data-model="([^"]*)" data-family="([^"]*)">')


def store_means(run_dir) -> dict[tuple[str, str], tuple[float, int]]:
    scores = defaultdict(list)
    with RunStore(run_dir / "run.sqlite") as store:
        (run,) = store.runs()
        for row in store.jobs(run["id"], "done"):
            model, family = row.settings["model"], row.settings["family"]
            scores[(model, family)].append(row.score)
            scores[(model, "overall")].append(row.score)
    return {k: (sum(v) / len(v), len(v)) for k, v in scores.items()}


def test_the_leaderboard_equals_the_store_and_the_page_is_self_contained(random_oracle_run,
                                                                         tmp_path):
    out = build_report([random_oracle_run], tmp_path / "report.html",
                       limits=ViewerLimits(max_transcripts=4))
    html = out.read_text(encoding="utf-8")
    cells = {(m, f): (float(mean), int(n)) for mean, n, m, f in CELL.findall(html)}
    expected = store_means(random_oracle_run)
    assert set(cells) == set(expected)   # 2 models x (3 families + overall)
    for key, (mean, n) in expected.items():
        assert abs(cells[key][0] - mean) < 1e-6 and cells[key][1] == n, key
    assert expected[("oracle", "overall")][0] > 0.9 and expected[("random", "mfp")][0] < 0.5

    # nothing to fetch: no URL, no script; every image is an inline PNG that decodes
    assert not re.search(r"https?://", html) and "<script" not in html.lower()
    assert not re.search(r'(?:src|href)="(?!data:image/png;base64,|#)', html)
    uris = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(uris) >= 5
    for data in set(uris):
        Image.open(io.BytesIO(base64.b64decode(data))).load()
    assert html.count("<figure><img") >= 2   # the family plot and the behaviour plot

    # the sections, and the scaling plots skipped for lack of usage
    assert f"<title>{TITLE}</title>" in html
    for anchor in ("runs", "leaderboard", "unscored", "tasks", "scaling", "knobs",
                   "behaviour", "viewer"):
        assert f'id="{anchor}"' in html
    assert "skipped, no finished episode made a model call (random or oracle agents only)" \
        in html
    assert 'class="compute"' not in html   # nothing consumed: no compute table
    assert "Every episode is done." in html
    assert "4 of 12 episodes shown" in html and "8 transcripts left out" in html
    for task in ("warehouse-mfp", "easel-cd", "easel-planning"):
        assert f"<th>{task}</th>" in html


def test_the_command_writes_the_report(random_oracle_run, tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="llm-eval")
    add_report_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "r.html"
    args = parser.parse_args(["report", str(random_oracle_run), "-o", str(out),
                              "--max-transcripts", "1", "--max-steps", "5"])
    assert args.handler(args) == 0
    assert f"report: {out}" in capsys.readouterr().out
    assert "1 of 12 episodes shown" in out.read_text(encoding="utf-8")
    args = parser.parse_args(["report", str(tmp_path / "missing"), "-o", str(out)])
    assert args.handler(args) == 2
    assert "not a run directory" in capsys.readouterr().err

    from llm_eval.cli import main  # the same command, as registered in llm-eval

    assert main(["report", str(random_oracle_run), "-o", str(tmp_path / "cli.html"),
                 "--max-transcripts", "0"]) == 0
    assert "0 of 12 episodes shown" in (tmp_path / "cli.html").read_text(encoding="utf-8")


class _Job:
    def __init__(self, job_id: str, settings: dict) -> None:
        self.id, self.settings = job_id, settings


def test_scaling_and_a_knob_that_changed_nothing(tmp_path):
    """Store rows of an LLM sweep over reasoning effort whose reasoning tokens did not move:
    the scaling curves are drawn with their verdict counts, the knob gets a warning."""
    run_dir = tmp_path / "llm"
    jobs = []
    for world in ("warehouse", "easel"):
        for effort in ("low", "high"):
            for seed in range(1, 5):
                settings = {"v": 1, "model": "openai/gpt-x", "world": world, "family": "mfp",
                            "task": f"{world}-mfp", "seed": seed, "repeat": 0,
                            "reasoning_effort": effort}
                jobs.append(_Job(f"{world}{effort}{seed}", settings))
    with RunStore(run_dir / "run.sqlite") as store:
        store.add_run("r", "r", {})
        store.add_jobs("r", jobs)
        for i, job in enumerate(jobs):
            store.start("r", job.id, f"transcripts/{job.id}.jsonl")
            tokens = 1000 * (1 + i % 4)
            store.finish("r", job.id, score=(i % 4) / 3, raw_reward=0.0, cost_usd=tokens / 1e6,
                         usage={"calls": 4, "input_tokens": tokens, "output_tokens": 100,
                                "reasoning_tokens": 64})
    html = build_report([run_dir], tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.count('class="trend"') == 3   # tokens, reasoning tokens, cost
    assert 'data-measure="total_tokens" data-helps="2" data-flat="0" data-hurts="0"' in html
    assert "How a world&#x27;s verdict is decided" in html
    assert '<div class="warn" data-knob="reasoning_effort">' in html
    assert "did not change what the provider did (reasoning_tokens)" in html
    assert "16 episodes have no transcript" in html
    # what each arm (effort level) consumed, summed by hand: 2 x (1000 + 2000 + 3000 + 4000)
    # input tokens and 8 x 100 output; 8 x 64 reasoning; cost = input tokens / 1e6
    table = re.search(r'<table class="compute">.*?</table>', html).group(0)
    assert re.findall(r"<tr><th>([^<]*)</th>", table)[1:] == \
        ["openai/gpt-x reasoning_effort=high", "openai/gpt-x reasoning_effort=low"]
    cells = re.findall(r'<td class="num"[^>]*>([^<]*)</td>', table)
    # no cache reads recorded (a run from before they were counted): "-", not 0%
    assert cells == ["8", "32", "20,800", "512", "-", "0.0200", "-", "0.0200"] * 2


def test_same_runs_same_bytes_and_a_torn_or_broken_transcript_is_reported(random_oracle_run,
                                                                          tmp_path):
    run_dir = tmp_path / "copy"
    shutil.copytree(random_oracle_run, run_dir)
    first = build_report([run_dir], tmp_path / "a.html").read_bytes()
    assert first == build_report([run_dir], tmp_path / "b.html").read_bytes()

    broken = transcript_files(run_dir / "transcripts")[0]
    broken.write_bytes(gzip.compress(b'{"not": "an event"}\n' +
                                     gzip.decompress(broken.read_bytes())))
    html = build_report([run_dir], tmp_path / "c.html").read_text(encoding="utf-8")
    assert "1 transcript(s) could not be read and are left out" in html
    assert f"transcript {broken.name} could not be read" in html
    assert "12 of 12 episodes shown" in html


def test_the_command_refuses_a_directory_that_is_not_a_run(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="llm-eval")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", str(tmp_path), "-o", str(tmp_path / "r.html")])
    assert args.handler(args) == 2
    assert "not a run directory" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_the_plots_of_a_page_are_written_as_png_files(random_oracle_run, tmp_path, capsys):
    from llm_eval.cli import main

    code = main(["report", str(random_oracle_run), "-o", str(tmp_path / "r.html"),
                 "--max-transcripts", "1", "--plots", str(tmp_path / "plots")])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    written = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert written == ["behaviour-per-model-bars-are.png", "mean-score-per-family-and.png"]
    assert out[1:] == [f"plot: {tmp_path / 'plots' / name}" for name in
                       ("mean-score-per-family-and.png", "behaviour-per-model-bars-are.png")]
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    for name in written:   # the very images of the page
        data = (tmp_path / "plots" / name).read_bytes()
        assert base64.b64encode(data).decode() in html
        with Image.open(io.BytesIO(data)) as image:
            assert image.format == "PNG"

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code = main(["report", str(random_oracle_run), "-o", str(tmp_path / "r2.html"),
                 "--plots", str(blocker)])
    assert code == 2 and f"--plots {blocker}: not a directory" in capsys.readouterr().err
    assert not (tmp_path / "r2.html").exists()   # refused before anything is written


WORLD_CELL = re.compile(r'data-mean="([0-9.]+)" data-n="(\d+)" data-model="([^"]*)" '
                        r'data-world="([^"]*)">')
KIND_CELL = re.compile(r'data-model="([^"]*)" data-kind="([^"]*)" data-count="(\d+)">')


def test_the_arms_of_a_prompt_sweep_are_ranked_apart_and_per_world(tmp_path):
    """One model swept over two prompts: the leaderboard and the per-world table show one
    column or row per prompt with the means worked out by hand, not one merged model."""
    run_dir = tmp_path / "prompts"
    scores = {("terse", "warehouse"): [0.0, 0.5], ("terse", "easel"): [1.0, 0.5],
              ("reflective", "warehouse"): [1.0, 1.0], ("reflective", "easel"): [0.25, 0.75]}
    jobs, done = [], {}
    for (prompt, world), values in scores.items():
        for seed, score in enumerate(values, 1):
            settings = {"v": 1, "model": "openai/gpt-x", "world": world, "family": "mfp",
                        "task": f"{world}-mfp", "seed": seed, "repeat": 0, "prompt": prompt}
            job = _Job(f"{prompt}{world}{seed}", settings)
            jobs.append(job)
            done[job.id] = score
    with RunStore(run_dir / "run.sqlite") as store:
        store.add_run("r", "r", {})
        store.add_jobs("r", jobs)
        for job in jobs:
            store.start("r", job.id, f"transcripts/{job.id}.jsonl")
            store.finish("r", job.id, score=done[job.id], raw_reward=0.0)
    html = build_report([run_dir], tmp_path / "r.html").read_text(encoding="utf-8")

    board = {(m, f): (float(mean), int(n)) for mean, n, m, f in CELL.findall(html)}
    assert board == {("openai/gpt-x prompt=reflective", "mfp"): (0.75, 4),
                     ("openai/gpt-x prompt=reflective", "overall"): (0.75, 4),
                     ("openai/gpt-x prompt=terse", "mfp"): (0.5, 4),
                     ("openai/gpt-x prompt=terse", "overall"): (0.5, 4)}
    worlds = {(m, w): (float(mean), int(n)) for mean, n, m, w in WORLD_CELL.findall(html)}
    assert worlds == {("openai/gpt-x prompt=terse", "warehouse"): (0.25, 2),
                      ("openai/gpt-x prompt=terse", "easel"): (0.75, 2),
                      ("openai/gpt-x prompt=reflective", "warehouse"): (1.0, 2),
                      ("openai/gpt-x prompt=reflective", "easel"): (0.5, 2)}
    assert 'id="worlds"' in html and 'href="#worlds"' in html


def test_actions_by_kind_add_up_the_transcripts(random_oracle_run, tmp_path):
    from llm_eval.analysis.behaviour import behaviour_of

    expected: dict[tuple[str, str], int] = defaultdict(int)
    with RunStore(random_oracle_run / "run.sqlite") as store:
        (run,) = store.runs()
        for row in store.jobs(run["id"], "done"):
            behaviour = behaviour_of(random_oracle_run / row.transcript)
            for kind, n in behaviour.actions_by_kind.items():
                expected[(row.settings["model"], kind)] += n
    html = build_report([random_oracle_run], tmp_path / "r.html").read_text(encoding="utf-8")
    shown = {(m, k): int(n) for m, k, n in KIND_CELL.findall(html)}
    assert {k: n for k, n in shown.items() if n} == {k: n for k, n in expected.items() if n}
    assert {m for m, _ in shown} == {"random", "oracle"}
    assert shown[("random", "click")] + shown[("random", "arrow")] > 0   # not all zero


def test_a_run_given_twice_under_two_names_counts_each_job_once(random_oracle_run, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(random_oracle_run, copy)
    html = build_report([random_oracle_run, copy], tmp_path / "r.html").read_text("utf-8")
    cells = {(m, f): (float(mean), int(n)) for mean, n, m, f in CELL.findall(html)}
    expected = store_means(random_oracle_run)
    assert {k: n for k, (_, n) in cells.items()} == {k: n for k, (_, n) in expected.items()}
    assert 'data-duplicates="12"' in html
    assert "12 job(s) appear in more than one run directory" in html
    single = build_report([random_oracle_run], tmp_path / "one.html").read_text("utf-8")
    assert "data-duplicates" not in single


def test_a_run_where_nothing_scored_draws_no_empty_chart(tmp_path):
    run_dir = tmp_path / "failed"
    jobs = [_Job(f"j{seed}", {"v": 1, "model": "openai/gpt-x", "world": "easel",
                              "family": "mfp", "task": "easel-mfp", "seed": seed, "repeat": 0})
            for seed in (1, 2)]
    with RunStore(run_dir / "run.sqlite") as store:
        store.add_run("r", "r", {})
        store.add_jobs("r", jobs)
        for job, status in zip(jobs, ("infra_error", "failed")):
            store.start("r", job.id, f"transcripts/{job.id}.jsonl")
            store.fail("r", job.id, status, "simulated")
    html = build_report([run_dir], tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Mean score per family and overall, with 95% confidence intervals: nothing to " \
           "plot." in html
    assert 'alt="Mean score per family' not in html
    assert "no score" in html   # the leaderboard row is still there, with its counts


def test_a_model_without_a_price_is_named_where_cost_is_missing(tmp_path):
    run_dir = tmp_path / "unpriced"
    jobs = [_Job(f"j{seed}", {"v": 1, "model": "openai-chat/house-model", "world": "easel",
                              "family": "mfp", "task": "easel-mfp", "seed": seed, "repeat": 0})
            for seed in (1, 2, 3)]
    with RunStore(run_dir / "run.sqlite") as store:
        store.add_run("r", "r", {})
        store.add_jobs("r", jobs)
        for job in jobs:
            store.start("r", job.id, f"transcripts/{job.id}.jsonl")
            store.finish("r", job.id, score=0.5, raw_reward=0.5, cost_usd=None,
                         usage={"calls": 2, "input_tokens": 100, "output_tokens": 10})
    html = build_report([run_dir], tmp_path / "r.html").read_text(encoding="utf-8")
    assert ("Score against cost per episode (USD): skipped, openai-chat/house-model is "
            "unpriced (LiteLLM&#x27;s price map has no price for it; a run gives one with "
            "--prices FILE)." in html)
    assert ("Score against reasoning tokens per episode: skipped, openai-chat/house-model "
            "reported no reasoning tokens." in html)
    table = re.search(r'<table class="compute">.*?</table>', html).group(0)
    assert re.findall(r'<td class="num"[^>]*>([^<]*)</td>', table) == \
        ["3", "6", "330", "-", "-", "unpriced", "-", "unpriced"]   # not $0


def test_the_compute_table_shows_the_share_read_from_cache_and_the_cost_without_it(tmp_path):
    """Per arm: input tokens read from the prompt cache over all input tokens of its done
    episodes, and the sum of their ``uncached_usd`` beside what they did cost."""
    run_dir = tmp_path / "cached"
    jobs = [_Job(f"{cache}{seed}", {"v": 1, "model": "anthropic/claude-x", "world": "easel",
                                    "family": "mfp", "task": "easel-mfp", "seed": seed,
                                    "repeat": 0, "history": cache})
            for cache in ("full", "auto") for seed in (1, 2)]
    with RunStore(run_dir / "run.sqlite") as store:
        store.add_run("r", "r", {})
        store.add_jobs("r", jobs)
        for i, job in enumerate(jobs):
            store.start("r", job.id, f"transcripts/{job.id}.jsonl")
            read = 0 if job.id.startswith("full") else 20_000 + 5_000 * i
            store.finish("r", job.id, score=0.5, raw_reward=0.5, cost_usd=0.01 * (i + 1),
                         usage={"calls": 10, "input_tokens": 50_000, "output_tokens": 400,
                                "cache_read_tokens": read, "cache_write_tokens": 0,
                                "uncached_usd": 0.15})
    html = build_report([run_dir], tmp_path / "r.html").read_text(encoding="utf-8")
    table = re.search(r'<table class="compute">.*?</table>', html).group(0)
    assert "input read from cache" in table and "without cache ($)" in table
    rows = dict(re.findall(r"<tr><th>([^<]*)</th>(.*?)</tr>", table)[1:])
    cells = {arm: re.findall(r'<td class="num"[^>]*>([^<]*)</td>', row)
             for arm, row in rows.items()}
    # auto: (30,000 + 35,000) of 100,000 input tokens from cache; cost 0.03 + 0.04
    assert cells["anthropic/claude-x history=auto"] == \
        ["2", "20", "100,800", "-", "65%", "0.0700", "0.3000", "0.0700"]
    assert cells["anthropic/claude-x history=full"] == \
        ["2", "20", "100,800", "-", "0%", "0.0300", "0.3000", "0.0300"]
