"""Provider registry: lazy factories, the model-name grammar, ``llm-eval providers``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llm_eval.adapters import (
    Adapter,
    UnknownProviderError,
    create_adapter,
    parse_model,
    providers,
    register_provider,
)
from llm_eval.adapters.registry import _REGISTRY
from llm_eval.cli import main


@pytest.mark.parametrize("spec,provider,model", [
    ("openai/gpt-5", "openai", "gpt-5"),
    ("openai-chat/gpt-4.1-mini", "openai-chat", "gpt-4.1-mini"),
    ("anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
    ("litellm/gemini/gemini-2.5-pro", "litellm", "gemini/gemini-2.5-pro"),
    ("litellm/openai/x", "litellm", "openai/x"),
    ("replay/runs/a/calls.json", "replay", "runs/a/calls.json"),
])
def test_model_names(spec, provider, model):
    ref = parse_model(spec)
    assert (ref.provider, ref.model, str(ref)) == (provider, model, spec)


@pytest.mark.parametrize("spec,message", [
    ("gpt-5", "expected provider/model"),
    ("openai/", "expected provider/model"),
    ("opnai/gpt-5", "did you mean 'openai'"),
])
def test_bad_model_names(spec, message):
    with pytest.raises(UnknownProviderError, match=message):
        parse_model(spec)


def test_package_imports_no_sdk():
    code = ("import sys, adapters, llm_eval.calls, llm_eval.pricing; "
            "print(sorted(m for m in ('openai', 'anthropic', 'litellm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_third_party_provider_uses_the_same_door():
    class Echo(Adapter):
        provider = "echo"

        async def complete(self, request):
            raise NotImplementedError

    try:
        register_provider("echo", sdk=None, description="test")(
            lambda model, **options: Echo(model, **options))
        adapter = create_adapter("echo/anything", base_url="x")
        assert adapter.name == "echo/anything" and adapter.options == {"base_url": "x"}
        assert "echo" in [p.name for p in providers()]
    finally:
        _REGISTRY.pop("echo", None)


def test_providers_command(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "fake-test-credential-whatever")
    assert main(["providers", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by_name = {r["name"]: r for r in rows}
    assert {"openai", "openai-chat", "anthropic", "litellm", "replay"} <= set(by_name)
    assert all(isinstance(r["available"], bool) for r in rows)
    assert by_name["openai"]["key_env"] == ["OPENAI_API_KEY"]
    assert by_name["openai"]["key_set"] == ["OPENAI_API_KEY"]
    assert "sk-test" not in json.dumps(rows)
    assert main(["providers"]) == 0
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().out
