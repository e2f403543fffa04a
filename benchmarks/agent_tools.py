"""Agent tools: what one call of each tool costs, and a small sweep over the tools settings.

``python benchmarks/agent_tools.py`` times each operation through ``AgentToolbox.call`` on a
real interaction history (hunters, a fixed list of seeded random actions): ``notes_write``,
``notes_read``, ``autumn_check`` with the world's own program on histories of 10, 50 and 200
actions (it replays the whole history each call, so it grows with it) and with a program that
does not parse, and ``python_run`` through the sandbox (a new process each call; distinct code
each call). Figures per call: wall clock (mean, 95th percentile over
``--repeat`` calls) and this process's CPU time (the sandbox's child is not in it).

``--sweep DIR`` also runs a sweep over ``agent_tools`` none, notes and notes+autumn+python
against a scripted model on the loopback fake provider of tests/adapters (it takes an action
like the estimate's stand-in, and on every third turn first calls each enabled tool: writes
its notes, checks the world's program or a wrong one, runs a line of Python), writes the
run to DIR and prints the report's tool-use rows per arm (``analysis.behaviour``). The fake
model's scores mean nothing; the rows show that tool use is counted and costed per arm.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORLD, FAMILY = "hunters", "mfp"
FULL = "notes+autumn+python"


def _history(actions: int):
    """A real interaction history of ``actions`` seeded random world actions in hunters."""
    from llm_eval.agent_tools.history import History
    from llm_eval.tasks.store import load_task
    from llm_eval.worldtest.interaction import InteractionPhase
    from llm_eval.worldtest.programs import original_world

    task = load_task(WORLD, FAMILY)
    phase = InteractionPhase(original_world(task), budget=actions + 1)
    rng = random.Random(1)
    history = History()
    obs = phase.reset()
    for _ in range(actions):
        history.observe(obs)
        action = rng.choice(["left", "right", "up", "down", "noop",
                             f"click {rng.randrange(14)} {rng.randrange(14)}"])
        history.acted(action)
        obs = phase.step(action)[0]
    history.observe(obs)
    return task, history


def _time(call, repeat: int) -> tuple[float, float, float]:
    """(mean wall, p95 wall, mean CPU of this process) of ``repeat`` calls."""
    seconds, cpu = [], []
    for i in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        call(i)
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    seconds.sort()
    return (statistics.mean(seconds), seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))],
            statistics.mean(cpu))


def overhead(repeat: int) -> dict:
    from llm_eval.agent_tools import AgentToolbox
    from llm_eval.worldtest.programs import original_world

    results = {}
    print(f"per call, {repeat} calls each: wall clock mean / p95; CPU of this process, mean "
          f"(a shared machine's load shows in the wall figures)")

    def show(name: str, mean: float, p95: float, cpu: float) -> None:
        results[name] = {"mean_ms": round(mean * 1000, 2), "p95_ms": round(p95 * 1000, 2),
                         "cpu_ms": round(cpu * 1000, 2)}
        print(f"  {name:<44} {mean * 1000:8.2f} / {p95 * 1000:8.2f} ms wall; "
              f"{cpu * 1000:8.2f} ms CPU")

    task, _ = _history(1)
    program = original_world(task).program
    box = AgentToolbox("notes+autumn+python", seed=task.seed)
    box.caps = type(box.caps)(per_episode=10 ** 9, per_turn=10 ** 9)

    def call(name, args):
        return box.call(name, args, phase="interaction", step=0, call_index=0)

    show("notes_write (1,000 characters)", *_time(
        lambda i: call("notes_write", {"text": f"{i} " + "x" * 995}), repeat))
    show("notes_read", *_time(lambda i: call("notes_read", {}), repeat))
    for n in (10, 50, 200):
        _, box.history = _history(n)
        record = call("autumn_check", {"program": program})
        assert record.detail["status"] == "matches", record.result
        show(f"autumn_check, true program, {n} actions", *_time(
            lambda i: call("autumn_check", {"program": program}), repeat))
    show("autumn_check, a program that fails to parse", *_time(
        lambda i: call("autumn_check", {"program": "(program (= GRID_SIZE"}), repeat))
    problem = sandbox_problem()
    if problem:
        print(f"  python_run: the sandbox cannot run here: {problem}")
        return results
    record = call("python_run", {"code": "print(1)"})
    assert record.status == "ok", record.result
    show("python_run (sandbox process)", *_time(
        lambda i: call("python_run", {"code": f"print(sum(range({i + 2})))"}), repeat))
    return results


def sandbox_problem() -> str | None:
    """Why the python tool's sandbox cannot run on this machine, or None."""
    from llm_eval.agent_tools.sandbox import SandboxUnavailable, run_python

    try:
        run_python("print(0)")
    except SandboxUnavailable as exc:
        return str(exc)
    return None


def _responder(program: str, wrong: str):
    """A FakeProvider responder: the stand-in's action; every third turn, first each enabled
    tool once (the world's program on even such turns, a wrong one on odd); usage counted on the
    wire as the stand-in's is."""
    from cache_billing import chat_prompt_tokens, chat_responder, output_tokens

    helpers = {"notes_read", "notes_write", "autumn_check", "python_run"}

    def respond(path: str, body: dict):
        offered = {t["function"]["name"] for t in body.get("tools", [])}
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        last = body["messages"][-1]
        answered_tool = last["role"] == "tool" and str(last.get("tool_call_id", "")).startswith("h")
        if offered & helpers and turn % 3 == 0 and not answered_tool:
            calls = []
            if "notes_write" in offered:
                calls.append(("notes_write", {"text": f"turn {turn}: wolves move every 3"}))
            if "autumn_check" in offered:
                calls.append(("autumn_check", {"program": program if turn % 2 == 0 else wrong}))
            if "python_run" in offered:
                calls.append(("python_run", {"code": f"print({turn} * 3)"}))
            completion = sum(output_tokens(name, args) for name, args in calls)
            return 200, {
                "id": f"chatcmpl-h{turn}", "object": "chat.completion", "created": 1764720000,
                "model": body["model"],
                "choices": [{"index": 0, "logprobs": None, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": "",
                                         "tool_calls": [
                                             {"id": f"h{turn}_{k}", "type": "function",
                                              "function": {"name": name,
                                                           "arguments": json.dumps(args)}}
                                             for k, (name, args) in enumerate(calls)]}}],
                "usage": {"prompt_tokens": chat_prompt_tokens(body),
                          "completion_tokens": completion,
                          "total_tokens": chat_prompt_tokens(body) + completion}}
        actions = dict(body, tools=[t for t in body.get("tools", [])
                                    if t["function"]["name"] not in helpers])
        return chat_responder(path, actions)

    return respond


def sweep(run_dir: Path) -> dict:
    from fake_provider import FakeProvider

    from llm_eval.analysis.behaviour import behaviour_of
    from llm_eval.sweep import Sweep, run_sweep
    from llm_eval.tasks.store import load_task
    from llm_eval.worldtest.programs import original_world

    model = "openai-chat/fake-model"
    program = original_world(load_task(WORLD, FAMILY)).program
    wrong = program.replace("(% clock 3)", "(% clock 2)")
    start = time.perf_counter()
    with FakeProvider(responder=_responder(program, wrong), keep_bodies=False) as fake:
        spec = Sweep.from_data({
            "name": "agent-tools", "models": [model], "worlds": [WORLD], "families": ["mfp"],
            "seeds": [1, 2, 3], "budgets": {"interaction_steps": [15]},
            "agent_tools": ["none", "notes", FULL if not sandbox_problem() else "notes+autumn"],
            "calls": {"max_attempts": 1, "timeout": 60},
            "prices": {"models": {model: {"input": 2.0, "output": 8.0}}},
            "adapter_options": {model: {"base_url": fake.base_url + "/v1",
                                        "api_key": "not-needed"}}}, "benchmark")
        report = run_sweep(spec, run_dir, processes=0)
    seconds = time.perf_counter() - start
    arms: dict[str, list] = {}
    for row in report.rows:
        path = run_dir / row.transcript
        b = behaviour_of(path)
        arms.setdefault(b.agent_tools, []).append((row, b))
    print(f"\nsweep: {len(report.rows)} jobs in {seconds:.1f} s wall -> {run_dir}")
    print(f"  {'agent_tools':<22}{'episodes':>9}{'score':>7}{'calls':>7}{'tool calls':>11}"
          f"{'hypotheses':>11}{'matched':>8}{'tool-only calls':>16}{'their USD':>10}"
          f"{'all USD':>9}")
    out = {}
    for tools in ("none", "notes", FULL, "notes+autumn"):
        if tools not in arms:
            continue
        members = arms.get(tools, [])
        n = len(members)
        mean = lambda xs: sum(xs) / len(xs) if xs else 0.0   # noqa: E731
        hyp = sum(b.hypotheses for _, b in members)
        matched = sum(b.hypotheses_matched for _, b in members)
        line = {"episodes": n, "score": mean([r.score or 0 for r, _ in members]),
                "calls": mean([r.usage["calls"] for r, _ in members]),
                "tool_calls": mean([b.tool_calls for _, b in members]),
                "hypotheses": mean([b.hypotheses for _, b in members]),
                "matched": matched / hyp if hyp else None,
                "tool_model_calls": mean([b.tool_model_calls for _, b in members]),
                "tool_usd": mean([b.tool_cost_usd or 0 for _, b in members]),
                "usd": mean([r.cost_usd or 0 for r, _ in members])}
        out[tools] = line
        matched_text = f"{line['matched']:.0%}" if line["matched"] is not None else "-"
        print(f"  {tools:<22}{n:>9}{line['score']:>7.3f}{line['calls']:>7.1f}"
              f"{line['tool_calls']:>11.1f}{line['hypotheses']:>11.1f}{matched_text:>8}"
              f"{line['tool_model_calls']:>16.1f}{line['tool_usd']:>10.4f}{line['usd']:>9.4f}")
    return {"seconds": round(seconds, 1), "arms": out}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--sweep", metavar="DIR", help="also run the sweep into DIR (new)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests" / "adapters"))
    results = {"overhead": overhead(args.repeat)}
    if args.sweep:
        results["sweep"] = sweep(Path(args.sweep))
    if args.json:
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
