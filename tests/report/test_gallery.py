"""The world gallery: index.html with each world's initial frame (PNG beside it and inline),
size, randomness, mechanics and its tasks' validation figures; every text escaped; the command
line's --gallery, --quick and --world."""

from __future__ import annotations

import dataclasses
import html
import re

from llm_eval.cli import main
from llm_eval.render import parse_png
from llm_eval.report import gallery
from llm_eval.tasks.store import load_task
from llm_eval.tasks.validate import Effort
from llm_eval.worlds import make_world, world_spec

TINY = Effort(rollouts=4, random_answers=60, fuzz_runs=1, fuzz_steps=10, click_sweep=False)


def test_a_world_with_its_three_tasks_figures(tmp_path):
    index = gallery.build_gallery(tmp_path, worlds=["easel"], effort=TINY,
                                  random_episodes=1)
    assert index == tmp_path / "index.html"
    page = index.read_text()
    # the initial frame with the tasks' seed, beside the page and inline (self-contained)
    planning = load_task("easel", "planning")
    frame, _ = make_world("easel", seed=planning.seed).reset()
    assert parse_png((tmp_path / "easel.png").read_bytes()) == frame
    assert (tmp_path / "easel-goal.png").read_bytes().startswith(b"\x89PNG")
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 2
    spec = world_spec("easel")
    assert f"{spec.size}x{spec.size}, deterministic. Mechanics: {spec.mechanics}." in page
    assert "Suites: v1, v2." in page   # easel's tasks are in both (v2 rebuilt others only)
    rows = dict(re.findall(r'<tr data-task="([a-z-]+)" data-passed="(true|false)">', page))
    assert rows == {"easel-mfp": "true", "easel-cd": "true", "easel-planning": "true"}
    row = page[page.index('data-task="easel-planning"'):]
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)[:3]
    # witness length, random success rate, oracle score
    assert cells == [str(len(planning.hidden.witness)), "0.0% of 4", "1.000"]
    assert f"horizon {planning.public.horizon}" in row
    cd = load_task("easel", "cd")
    assert f"change: {html.escape(cd.hidden.change)}" in page
    assert "<script" not in page and "http" not in page.split("</head>")[1]


def _fake_figures(change: str = "", failed=()):
    def figures(task, effort, random_episodes, cache=None, refresh=False):
        return {"task": task.id, "family": task.family, "passed": not failed,
                "failed": list(failed), "oracle": 1.0, "witness": 3, "random_rate": 0.0,
                "random_of": 1, "detail": "", "change": change, "reused": False,
                "not_kept": None}
    return figures


def test_every_text_is_escaped(tmp_path, monkeypatch):
    import llm_eval.worlds as worlds

    real = worlds.default_registry()
    spec = dataclasses.replace(real.get("warehouse"), description="<script>alert(1)</script>",
                               mechanics="a & b <i>")

    class Registry:
        def names(self):
            return ["warehouse"]

        def get(self, name):
            return spec

    monkeypatch.setattr(worlds, "default_registry", lambda: Registry())
    monkeypatch.setattr(gallery, "task_figures",
                        _fake_figures("<img src=x onerror=alert(1)>", ["<b>x</b>"]))
    page = gallery.build_gallery(tmp_path, effort=TINY).read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a &amp; b &lt;i&gt;" in page
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "FAIL: &lt;b&gt;x&lt;/b&gt;" in page


def test_the_command_line(tmp_path, monkeypatch, capsys):
    seen = {}
    real = gallery.build_gallery

    def spy(directory, **options):
        seen.update(options)
        return real(directory, **options)

    monkeypatch.setattr(gallery, "build_gallery", spy)
    monkeypatch.setattr(gallery, "task_figures", _fake_figures())
    assert main(["worlds", "--gallery", str(tmp_path), "--quick", "--world", "easel",
                 "--processes", "1"]) == 0
    assert seen["worlds"] == ["easel"] and seen["random_episodes"] == 5
    assert seen["processes"] == 1
    assert seen["effort"].rollouts < 200
    assert f"gallery: {tmp_path / 'index.html'}" in capsys.readouterr().out
    page = (tmp_path / "index.html").read_text()
    assert 'data-world="easel"' in page and 'data-world="warehouse"' not in page
    assert main(["worlds", "--gallery", str(tmp_path), "--world", "gravty"]) == 2
    assert "did you mean 'gravity'" in capsys.readouterr().err
    assert main(["worlds", "--quick"]) == 2
    assert main(["worlds", "--processes", "2"]) == 2
    assert main(["worlds", "--gallery", str(tmp_path), "--processes", "0"]) == 2


def test_worker_processes_give_the_same_figures():
    """The gallery validates in worker processes; what it shows does not depend on where a
    task was validated (only the seconds taken do)."""
    from llm_eval.tasks.store import all_tasks

    tasks = [t for t in all_tasks(["easel"]) if t.family != "cd"]   # CD validation is slow
    reported = {1: [], 2: []}

    def figures(processes):
        rows = gallery._all_figures(tasks, TINY, 1, processes, reported[processes].append,
                                    None, False)
        return {task: {key: value for key, value in row.items() if key != "seconds"}
                for task, row in rows.items()}
    alone, pooled = figures(1), figures(2)
    assert list(alone) == [t.id for t in tasks] and all(r["passed"] for r in alone.values())
    assert pooled == alone
    # progress: each task once as it finishes (in one process, in order)
    assert reported[1] == [f"validated {t.id}" for t in tasks]
    assert sorted(reported[2]) == sorted(reported[1])


def test_the_reports_tasks_validate_kept_are_reused(tmp_path, monkeypatch, capsys):
    """``tasks validate`` keeps its reports (llm_eval/tasks/report_cache.py); the gallery of
    the same tasks at the same effort shows them without validating again (the same figures
    but the seconds), and says so; ``--no-cache`` validates again."""
    from llm_eval.tasks import report_cache, validate
    from llm_eval.tasks.store import all_tasks

    monkeypatch.setenv(report_cache.ENV, str(tmp_path / "reports"))
    tasks = [t for t in all_tasks(["easel"]) if t.family != "cd"]   # CD validation is slow
    made = list(report_cache.validate_kept(tasks, TINY, 1, folder=report_cache.cache_dir()))
    assert [(report.task, reused) for report, reused, _ in made] == [(t.id, False) for t in tasks]
    monkeypatch.setattr(validate, "validate_task", lambda task, effort: 1 / 0)
    reported: list[str] = []
    rows = gallery._all_figures(tasks, TINY, 1, 1, reported.append, report_cache.cache_dir(),
                                False)
    assert reported == [f"reused the kept report of {t.id}" for t in tasks]
    assert all(row["passed"] and row["reused"] for row in rows.values())
    assert rows["easel-planning"]["random_of"] == TINY.rollouts
    options = {}
    monkeypatch.setattr(gallery, "build_gallery",
                        lambda directory, **o: options.update(o) or tmp_path / "index.html")
    assert main(["worlds", "--gallery", str(tmp_path), "--world", "easel", "--no-cache"]) == 0
    assert options["refresh"] and options["cache"] == tmp_path / "reports"
    assert main(["worlds", "--no-cache"]) == 2
