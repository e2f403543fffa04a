"""``llm-eval run --check-first``: every provider model checked with the sweep's settings on a
loopback fake provider before the first job; a refusal stops the run before any job."""

from __future__ import annotations

from fake_provider import FakeProvider
from provider_bodies import chat_body, openai_error

from llm_eval.cli import main
from llm_eval.sweep import Sweep
from llm_eval.sweep.check_first import check_settings

MODEL = "openai-chat/gpt-4.1-mini"
CHECK_SYSTEM = "This is llm-eval checking a model endpoint"


def player(refuse_tools: bool = False):
    """Answers text with text and tools with the shortest way through an mfp episode:
    go-to-test, then choose 0; with ``refuse_tools`` every request with tools is a 400."""
    def respond(path, body):
        tools = [t["function"]["name"] for t in body.get("tools") or ()]
        if tools and refuse_tools:
            return 400, openai_error("tools is not supported in this model. For a list of "
                                     "supported models, refer to the documentation.",
                                     "invalid_request_error")
        if "go_to_test" in tools:
            return 200, chat_body(calls=[("call_1", "go_to_test", {})])
        if "choose" in tools:
            return 200, chat_body(calls=[("call_2", "choose", {"k": 0})])
        if tools:
            return 200, chat_body(calls=[("call_3", tools[0], {"x": 0, "y": 0})])
        return 200, chat_body(text="ok")
    return respond


def run(tmp_path, fake, *extra):
    return main(["run", "--model", MODEL, "--worlds", "hunters", "--families", "mfp",
                 "--base-url", fake.base_url + "/v1", "-o", str(tmp_path / "run"),
                 "--no-progress", "--check-first", *extra])


def is_check(seen) -> bool:
    return seen.body["messages"][0]["content"].startswith(CHECK_SYSTEM)


def test_a_model_that_refuses_tools_stops_the_sweep_before_any_job(tmp_path, capsys):
    with FakeProvider(responder=player(refuse_tools=True)) as fake:
        code = run(tmp_path, fake)
        seen = list(fake.seen)
    out, err = capsys.readouterr()
    assert code == 1
    assert "tools: interaction  refused" in out and "tools is not supported" in out
    assert f"--check-first: {MODEL} would fail" in err and "no job was run" in err
    assert seen and all(is_check(s) for s in seen)     # nothing but the check was sent
    assert not (tmp_path / "run").exists()               # no store, no transcript


def test_a_model_that_passes_runs_its_jobs_after_the_check(tmp_path, capsys):
    with FakeProvider(responder=player()) as fake:
        code = run(tmp_path, fake, "--renderings", "compact+png")
        seen = list(fake.seen)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "result: ready" in out
    checks = [is_check(s) for s in seen]
    # every check call came before the first job call; the job ran (go-to-test, choose 0)
    assert checks == [True] * checks.count(True) + [False] * checks.count(False)
    assert checks.count(False) == 2
    assert "1 jobs (1 done); ran 1" in out


def test_check_first_in_a_spec_file_stops_the_run_too(tmp_path, capsys):
    with FakeProvider(responder=player(refuse_tools=True)) as fake:
        spec = tmp_path / "sweep.yaml"
        spec.write_text(f"models: [{MODEL}]\nworlds: [hunters]\nfamilies: [mfp]\n"
                        f"check_first: true\nadapter_options:\n  {MODEL}:\n"
                        f"    base_url: {fake.base_url}/v1\n")
        code = main(["run", str(spec), "-o", str(tmp_path / "run"), "--no-progress"])
        seen = list(fake.seen)
    out, err = capsys.readouterr()
    assert code == 1 and "no job was run" in err and "tools is not supported" in out
    assert seen and all(is_check(s) for s in seen)
    assert not (tmp_path / "run").exists()
    assert Sweep.from_data({"models": [MODEL], "worlds": ["hunters"]}).check_first is False


def test_check_first_with_resume_is_a_usage_error(tmp_path, capsys):
    assert main(["run", "--resume", str(tmp_path), "--check-first"]) == 2
    assert "--check-first checks a sweep before it runs" in capsys.readouterr().err


def test_the_checked_settings_are_the_sweeps():
    spec = Sweep.from_data({
        "models": [MODEL, "random", "oracle"], "worlds": ["hunters"],
        "families": ["mfp", "planning"], "renderings": ["compact", "diff+png"],
        "budgets": {"thinking_budget": [None, 2048], "reasoning_effort": [None, "low"]},
        "temperature": 0.5, "model_seed": 7, "cache": "off",
        "adapter_options": {MODEL: {"base_url": "http://127.0.0.1:9/v1"}}})
    (settings,) = check_settings(spec)
    assert settings.model == MODEL and settings.image is True
    assert settings.knobs == ((None, "low"), (2048, None), (2048, "low"))
    assert (settings.temperature, settings.seed, settings.cache) == (0.5, 7, "off")
    assert settings.adapter_options == {"base_url": "http://127.0.0.1:9/v1"}
    assert sorted(t.family for t in settings.tasks) == ["mfp", "planning"]
    assert check_settings(Sweep.from_data({"models": ["random"], "worlds": ["hunters"]})) == []
