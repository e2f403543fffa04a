"""``llm-eval providers check``: the real SDK clients against a loopback fake provider that
accepts a feature, refuses it (400 with the provider's error body) or ignores it; a closed
port; the JSON shape; exit codes."""

from __future__ import annotations

import json
import socket

import pytest
from fake_provider import FakeProvider
from provider_bodies import anthropic_error, chat_body, messages_body, openai_error

from llm_eval.adapters import action_tools
from llm_eval.cli import main
from llm_eval.pricing import price
from llm_eval.probe import CheckSettings, check_model_sync, default_tasks, phase_observations

MODEL = "openai-chat/gpt-4.1-mini"
CLAUDE = "anthropic/claude-sonnet-4-5"
SECRET = "fake-test-credential-PROBEKEY0123"


def chat_user_parts(body: dict) -> list:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def has_image(body: dict) -> bool:
    if "messages" in body and body["messages"] and "content" in body["messages"][-1]:
        content = body["messages"][-1]["content"]
        if isinstance(content, list):
            return any(p.get("type") in ("image_url", "image") for p in content)
    return False


def chat_model(refuse=None, image_tokens: int = 300, reasoning: int = 0):
    """A Chat Completions server: answers tool requests with a call of the first tool, others
    with text; ``refuse(body)`` returns an error message to answer 400 with, or None."""
    def respond(path: str, body: dict):
        if refuse is not None and (message := refuse(body)) is not None:
            return 400, openai_error(message, "invalid_request_error")
        usage = {"prompt_tokens": 900 + (image_tokens if has_image(body) else 0),
                 "completion_tokens": 5, "total_tokens": 905,
                 "completion_tokens_details": {"reasoning_tokens": reasoning}}
        if body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            args = {"x": 1, "y": 2} if name == "click" else {"t": 0} if name == "watch" else {}
            return 200, chat_body(calls=[("call_1", name, args)], usage=usage)
        return 200, chat_body(text="ok", usage=usage)
    return respond


def run_check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["providers", "check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_feature_accepted_json_shape_and_cost(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider(responder=chat_model(reasoning=12)) as fake:
        code, out, err = run_check(capsys, MODEL, "--base-url", fake.base_url + "/v1",
                                   "--rendering", "compact+png", "--reasoning-effort", "low",
                                   "--json")
        seen = [s.body for s in fake.seen]
    assert code == 0, err
    report = json.loads(out)
    assert set(report) == {"model", "endpoint", "ok", "error", "price", "calls", "cost_usd",
                           "features"}
    assert report["ok"] is True and report["error"] is None
    assert report["endpoint"] == fake.base_url + "/v1"
    features = {f["feature"]: f for f in report["features"]}
    # cd's tools before declare are all in the interaction phase's: not sent again
    assert list(features) == ["basic", "tools: interaction", "tools: mfp", "tools: planning",
                              "reasoning effort low", "image"]
    for f in report["features"]:
        assert set(f) == {"feature", "status", "detail", "calls", "cost_usd", "usage",
                          "knobs_dropped"}
        assert f["status"] == "accepted", f
    # the tools sent are the phases' real action tools, in the run's tool mode
    observations = phase_observations(default_tasks())
    phases = [[t.name for t in action_tools(o.actions)] for o in observations.values()]
    sent = [[t["function"]["name"] for t in b["tools"]] for b in seen if b.get("tools")]
    assert all(names in phases for names in sent)
    assert all(any(set(names) <= set(s) for s in sent) for names in phases)
    assert all(b.get("tool_choice") == "required" for b in seen if b.get("tools"))
    # each call is tiny; the reasoning effort went out with the interaction tools
    assert all(b["max_completion_tokens"] <= 64 for b in seen)
    (effort,) = [b for b in seen if "reasoning_effort" in b]
    assert effort["reasoning_effort"] == "low" and len(effort["tools"]) == 8
    assert sum(has_image(b) for b in seen) == 1
    assert "read: 300 input tokens" in features["image"]["detail"]
    # priced from LiteLLM's map, as a run prices it; the cost is the calls' own
    assert report["price"]["source"].startswith("LiteLLM price map")
    assert report["calls"] == len(seen) == 6
    usage = features["tools: mfp"]["usage"]
    assert features["tools: mfp"]["cost_usd"] == pytest.approx(price(usage, MODEL).usd)
    assert report["cost_usd"] == pytest.approx(sum(f["cost_usd"] for f in report["features"]))
    assert 0 < report["cost_usd"] < 0.01
    assert SECRET not in out


def test_a_refused_image_is_reported_with_the_scrubbed_message_and_exit_1(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)

    def refuse(body):
        if has_image(body):
            return f"Invalid content type. image_url is only supported by certain models (key {SECRET})"
        return None

    with FakeProvider(responder=chat_model(refuse)) as fake:
        code, out, err = run_check(capsys, MODEL, "--base-url", fake.base_url + "/v1",
                                   "--rendering", "png")
    assert code == 1, err
    line = next(line for line in out.splitlines() if line.strip().startswith("image"))
    assert "refused" in line and "image_url is only supported by certain models" in line
    assert "bad_request" in line
    assert SECRET not in out and "[redacted]" in line
    assert "a run would fail: image refused" in out


def test_a_refused_reasoning_effort_is_exit_1_and_the_rest_still_checked(capsys):
    def refuse(body):
        if "reasoning_effort" in body:
            return "Unrecognized request argument supplied: reasoning_effort"
        return None

    with FakeProvider(responder=chat_model(refuse)) as fake:
        code, out, _ = run_check(capsys, MODEL, "--base-url", fake.base_url + "/v1",
                                 "--reasoning-effort", "high", "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    statuses = {f["feature"]: f["status"] for f in report["features"]}
    assert statuses["reasoning effort high"] == "refused"
    assert statuses["basic"] == statuses["tools: interaction"] == "accepted"
    assert "Unrecognized request argument" in next(
        f["detail"] for f in report["features"] if f["feature"] == "reasoning effort high")


def test_ignored_features_are_named_and_do_not_fail_the_check(capsys):
    """A thinking budget the route does not send (knobs_dropped), an effort the reply shows no
    reasoning for, an image that adds no input tokens, tools the reply does not call."""
    def respond(path, body):
        usage = {"prompt_tokens": 900, "completion_tokens": 5, "total_tokens": 905}
        return 200, chat_body(text="ok", usage=usage)

    with FakeProvider(responder=respond) as fake:
        code, out, _ = run_check(capsys, MODEL, "--base-url", fake.base_url + "/v1",
                                 "--thinking-budget", "2048", "--rendering", "png",
                                 "--families", "mfp", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    features = {f["feature"]: f for f in report["features"]}
    assert {f["status"] for f in features.values()} == {"accepted", "ignored"}
    thinking = features["thinking budget 2048"]
    assert thinking["status"] == "ignored" and "thinking_budget" in thinking["knobs_dropped"]
    assert features["image"]["status"] == "ignored"
    assert "did not grow with the image (900 tokens with it, 900 without)" in \
        features["image"]["detail"]
    assert features["tools: interaction"]["status"] == "ignored"
    assert "called none" in features["tools: interaction"]["detail"]


def test_a_refused_basic_call_skips_the_rest(capsys, monkeypatch):
    with FakeProvider() as fake:
        fake.error(404, openai_error("The model `gpt-nope` does not exist", "invalid_request_error",
                                     "model_not_found"))
        code, out, _ = run_check(capsys, "openai-chat/gpt-nope", "--base-url",
                                 fake.base_url + "/v1", "--json")
        assert len(fake.seen) == 1
    report = json.loads(out)
    assert code == 1
    assert [f["status"] for f in report["features"]] == ["refused"] + ["skipped"] * 3
    assert "does not exist" in report["features"][0]["detail"]
    assert report["price"] == {"source": "unpriced", "priced_as": None}
    assert report["cost_usd"] is None


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_offline_fails_with_a_message_naming_the_endpoint(capsys, no_waits):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code, out, err = run_check(capsys, MODEL, "--base-url", url)
    assert code == 1
    assert "Traceback" not in out + err
    assert f"cannot reach {MODEL} at {url}" in out
    assert "connection failed" in out
    # the retry layer's policy was used (waits between attempts), then the check stopped
    assert len(no_waits) == 5
    assert "tools: interaction  skipped" in out


def test_offline_json_and_a_name_that_does_not_resolve(capsys):
    code, out, _ = run_check(capsys, MODEL, "--base-url", "http://no-such-host.invalid/v1",
                             "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    assert report["error"].startswith(f"cannot reach {MODEL} at http://no-such-host.invalid/v1")
    assert report["features"][0]["status"] == "unreachable"


@pytest.mark.parametrize("argv,message", [
    (["openai-chat/x", "--rendering", "svg"], "--rendering: "),
    (["nope/x"], "unknown provider 'nope'"),
    (["replay/runs/a/calls.json"], "answers from a recording"),
    (["anthropic/claude-sonnet-4-5"], "ANTHROPIC_API_KEY is not set"),
    (["openai-chat/x", "--base-url", "http://127.0.0.1:9/v1", "--world", "atlantis"],
     "atlantis"),
])
def test_usage_errors_exit_2_without_a_call(capsys, argv, message):
    code, out, err = run_check(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err, (out, err)
    assert "unrecognized arguments" not in err and not out


def test_bad_option_values_are_argparse_usage_errors(capsys):
    assert main(["providers", "check", MODEL, "--thinking-budget", "0"]) == 2
    assert "argument --thinking-budget: must be at least 1, got 0" in capsys.readouterr().err
    assert main(["providers", "check", MODEL, "--reasoning-effort", "huge"]) == 2
    assert "argument --reasoning-effort: invalid choice: 'huge'" in capsys.readouterr().err
    assert main(["providers", "check"]) == 2
    assert "the following arguments are required: MODEL" in capsys.readouterr().err


def test_the_provider_list_is_unchanged(capsys):
    assert main(["providers", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"openai", "anthropic", "litellm"} <= {r["name"] for r in rows}
    assert main(["providers"]) == 0
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().out


# -- Anthropic: thinking and the prompt cache ----------------------------------------------------

def claude_model(*, thinking: bool, cache: bool):
    """A Messages server: thinking blocks only if ``thinking``; with ``cache`` the second
    request of a prefix reads it (cache_read_input_tokens), as Anthropic bills."""
    prefixes: set[str] = set()

    def respond(path, body):
        usage = {"input_tokens": 40, "output_tokens": 20}
        system = body.get("system")
        if isinstance(system, list) and system and "cache_control" in system[-1]:
            text = system[-1]["text"]
            if cache and text in prefixes:
                usage |= {"cache_read_input_tokens": 1500, "cache_creation_input_tokens": 0}
            else:
                prefixes.add(text)
                usage |= {"cache_read_input_tokens": 0, "cache_creation_input_tokens": 1500}
        calls = []
        if body.get("tools"):
            calls = [("toolu_01", body["tools"][-1]["name"], {})]
        return 200, messages_body(calls=calls, text=None if calls else "ok",
                                  thinking="short" if thinking and "thinking" in body else None,
                                  usage=usage)
    return respond


def test_anthropic_thinking_and_cache_accepted(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with FakeProvider(responder=claude_model(thinking=True, cache=True)) as fake:
        code, out, _ = run_check(capsys, CLAUDE, "--base-url", fake.base_url,
                                 "--thinking-budget", "1024", "--families", "cd", "--json")
        seen = [s.body for s in fake.seen]
    report = json.loads(out)
    assert code == 0, out
    features = {f["feature"]: f for f in report["features"]}
    assert features["thinking budget 1024"]["status"] == "accepted"
    (thinking,) = [b for b in seen if "thinking" in b]
    assert thinking["thinking"]["budget_tokens"] == 1024 and thinking["tools"]
    assert thinking["max_tokens"] <= 1024 + 64
    cache = features["cache"]
    assert cache["status"] == "accepted" and cache["calls"] == 2
    assert "1500 tokens read from the cache on the second call" in cache["detail"]
    cached = [b for b in seen if isinstance(b.get("system"), list)
              and len(b["system"][-1]["text"]) > 4000]
    assert len(cached) == 2 and cached[0] == cached[1]
    assert report["price"]["source"].startswith("LiteLLM price map")


def test_anthropic_thinking_and_cache_ignored(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with FakeProvider(responder=claude_model(thinking=False, cache=False)) as fake:
        code, out, _ = run_check(capsys, CLAUDE, "--base-url", fake.base_url,
                                 "--thinking-budget", "1024", "--families", "cd", "--json")
    report = json.loads(out)
    assert code == 0
    features = {f["feature"]: f for f in report["features"]}
    assert features["thinking budget 1024"]["status"] == "ignored"
    assert "shows no reasoning" in features["thinking budget 1024"]["detail"]
    assert features["cache"]["status"] == "ignored"
    assert "no cache read on the second call (1500 tokens written" in features["cache"]["detail"]


def test_anthropic_refusing_forced_tools_with_thinking_is_a_refusal(monkeypatch):
    """The Messages API's answer to forced tool use with thinking on; whatever the adapter
    sends, the check reports what the server said."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    respond_ok = claude_model(thinking=True, cache=True)

    def respond(path, body):
        if "thinking" in body:
            return 400, anthropic_error("invalid_request_error", "Thinking may not be enabled "
                                        "when tool_choice forces tool use.")
        return respond_ok(path, body)

    with FakeProvider(responder=respond) as fake:
        settings = CheckSettings(CLAUDE, {"base_url": fake.base_url}, knobs=((2048, None),),
                                 cache="off", tasks=default_tasks("hunters", ("mfp",)))
        report = check_model_sync(settings)
    statuses = {f.feature: f.status for f in report.features}
    assert statuses == {"basic": "accepted", "tools: interaction": "accepted",
                        "tools: mfp": "accepted", "thinking budget 2048": "refused"}
    assert not report.ok
    assert "Thinking may not be enabled" in report.features[-1].detail


def test_a_price_file_is_the_named_source(tmp_path, capsys):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  openai-chat/smollm2: {input: 1.0, output: 2.0}\n")
    with FakeProvider(responder=chat_model()) as fake:
        code, out, _ = run_check(capsys, "openai-chat/smollm2", "--base-url",
                                 fake.base_url + "/v1", "--tool-mode", "text", "--prices",
                                 str(prices), "--json")
    report = json.loads(out)
    assert code == 0
    assert report["price"] == {"source": f"prices file {prices}",
                               "priced_as": "openai-chat/smollm2"}
    # text mode sends no tools: nothing but the basic call
    assert [f["feature"] for f in report["features"]] == ["basic"]
    assert report["cost_usd"] == pytest.approx((900 * 1.0 + 5 * 2.0) / 1e6)


def test_max_attempts_and_credentials_in_the_url_stay_out_of_the_report(capsys, no_waits):
    url = f"http://user:hunter2secret@127.0.0.1:{closed_port()}/v1"
    code, out, err = run_check(capsys, MODEL, "--base-url", url, "--max-attempts", "2")
    assert code == 1 and "Traceback" not in out + err
    assert len(no_waits) == 1                        # two attempts, one wait between
    assert "hunter2secret" not in out + err
    assert "cannot reach" in out and "[redacted]@127.0.0.1" in out


def test_litellm_route_to_an_openai_compatible_server(capsys):
    """The LiteLLM adapter (its own HTTP client) over loopback: basic, tools, an image."""
    with FakeProvider(responder=chat_model()) as fake:
        code, out, err = run_check(capsys, "litellm/openai/gpt-4.1-mini", "--base-url",
                                   fake.base_url + "/v1", "--families", "mfp", "--rendering",
                                   "png", "--json")
        paths = {s.path for s in fake.seen}
    report = json.loads(out)
    assert code == 0, (out, err)
    assert paths == {"/v1/chat/completions"}
    assert {f["feature"]: f["status"] for f in report["features"]} == {
        "basic": "accepted", "tools: interaction": "accepted", "tools: mfp": "accepted",
        "image": "accepted"}


def test_exhausted_retries_are_failed_not_refused_and_stop_the_rest(capsys, no_waits):
    """Every attempt a 503: the retry layer's attempts are used, the feature is ``failed``
    (nothing known), the rest is not tried, exit 1."""
    def respond(path, body):
        return 503, openai_error("The server is overloaded", "server_error")

    with FakeProvider(responder=respond) as fake:
        code, out, _ = run_check(capsys, MODEL, "--base-url", fake.base_url + "/v1",
                                 "--max-attempts", "3", "--families", "mfp", "--json")
        assert len(fake.seen) == 3
    report = json.loads(out)
    assert code == 1 and len(no_waits) == 2
    assert [f["status"] for f in report["features"]] == ["failed", "skipped", "skipped"]
    assert "gave up after 3 attempts" in report["features"][0]["detail"]
    assert report["error"] is None


# -- OpenAI Responses: reasoning, and the automatic prompt cache ---------------------------------

def responses_model():
    """A Responses server: reasoning tokens when ``reasoning`` is sent; a prompt it has seen
    before is read from the cache (cached_tokens), as OpenAI's automatic cache does."""
    from provider_bodies import responses_body

    seen: set[str] = set()

    def respond(path, body):
        prompt = json.dumps([body.get("instructions"), body.get("input"), body.get("tools")],
                            sort_keys=True)
        cached = 1536 if prompt in seen and len(prompt) > 4000 else 0
        seen.add(prompt)
        usage = {"input_tokens": 2000, "input_tokens_details": {"cached_tokens": cached,
                                                          "cache_write_tokens": 0},
                 "output_tokens": 30,
                 "output_tokens_details": {"reasoning_tokens": 24 if "reasoning" in body
                                           else 0},
                 "total_tokens": 2030}
        if body.get("tools"):
            name = body["tools"][0]["name"]
            args = {"x": 1, "y": 2} if name == "click" else {"t": 0} if name == "watch" else {}
            return 200, responses_body(calls=[("call_1", name, args)], usage=usage)
        return 200, responses_body(text="ok", usage=usage)
    return respond


def test_openai_responses_reasoning_and_automatic_cache_accepted(monkeypatch):
    """The route's own API (no base URL in the settings, so the cache is OpenAI's automatic
    one), its adapter pointed at loopback."""
    from llm_eval.adapters import create_adapter

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider(responder=responses_model()) as fake:
        adapter = create_adapter("openai/gpt-5", base_url=fake.base_url + "/v1", cache="auto")
        settings = CheckSettings("openai/gpt-5", knobs=((None, "low"),),
                                 tasks=default_tasks("hunters", ("mfp",)))
        report = check_model_sync(settings, adapter=adapter)
        bodies = [s.body for s in fake.seen]
    statuses = {f.feature: f.status for f in report.features}
    assert statuses == {"basic": "accepted", "tools: interaction": "accepted",
                        "tools: mfp": "accepted", "reasoning effort low": "accepted",
                        "cache": "accepted"}, report.features
    assert report.ok
    # the Responses API takes no max_output_tokens under 16
    assert all(16 <= b["max_output_tokens"] <= 64 for b in bodies)
    (effort,) = [b for b in bodies if "reasoning" in b]
    assert effort["reasoning"]["effort"] == "low" and effort["tools"]
    cache = report.features[-1]
    assert cache.calls == 2 and "1536 tokens read from the cache" in cache.detail
    from llm_eval.pricing import default_prices

    assert report.price["priced_as"] == default_prices().lookup("openai/gpt-5")[0]
    assert report.cost_usd == pytest.approx(sum(f.cost_usd for f in report.features))
