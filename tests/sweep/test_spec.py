"""The sweep spec: validation errors name the file and field; job ids are deterministic and
change with any setting; expansion is the product of the axes."""

from __future__ import annotations

import pytest

from llm_eval.sweep import Job, SpecError, Sweep, job_id

BASE = {"models": ["random"], "worlds": ["warehouse"], "families": ["mfp"]}


def write(tmp_path, text: str):
    path = tmp_path / "sweep.yaml"
    path.write_text(text)
    return path


def test_a_yaml_spec_reads_with_single_values_as_lists(tmp_path):
    spec = Sweep.from_yaml(write(tmp_path, """
name: small
models: [random, oracle, openai/gpt-5]
worlds: warehouse
families: [mfp, cd]
budgets: {interaction_steps: [10, 50], reasoning_effort: [low, high], history: [full, 4]}
prompts: [default, reflective]
renderings: [compact, compact+png]
seeds: [1, 2]
repeats: 2
concurrency: {openai: 2}
spend_cap_usd: 5
"""))
    assert spec.worlds == ["warehouse"] and spec.limit_for("openai") == 2
    assert spec.limit_for("anthropic") == spec.default_concurrency
    jobs = spec.expand()
    local = 2 * 2 * 2 * 2 * 2           # agents x families x steps x seeds x repeats
    llm = 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2  # families x steps x seeds x repeats x prompts x
    #                                      renderings x history x effort
    assert len(jobs) == local + llm
    assert len({j.id for j in jobs}) == len(jobs)
    random_job = next(j for j in jobs if j.model == "random")
    assert "prompt" not in random_job.settings   # model-only settings do not multiply them


@pytest.mark.parametrize("text, message", [
    ("models: [randm]\nworlds: [warehouse]", r"sweep\.yaml:1: models: unknown agent 'randm'; "
                                             r"did you mean 'random'"),
    ("models: [nope/x]\nworlds: [warehouse]", r"sweep\.yaml:1: models: .*nope"),
    ("models: [random]\nworlds: [warehous]", r"sweep\.yaml:2: worlds: unknown world "
                                             r"'warehous'; did you mean 'warehouse'"),
    ("models: [random]\nworlds: [warehouse]\nfamilies: [plan]", r"sweep\.yaml:3: families\.0: "),
    ("models: [random]\nworlds: [warehouse]\nbudgets: {history: [0]}",
     r"sweep\.yaml:3: budgets\.history: must be at least 1"),
    ("models: [random]\nworlds: [warehouse]\nbudgets: {reasoning_effort: [huge]}",
     r"sweep\.yaml:3: budgets\.reasoning_effort\.0: "),
    ("models: [random]\nworlds: [warehouse]\nprompts: [terse]",
     r"sweep\.yaml:3: prompts: unknown prompt variant 'terse'"),
    ("models: [random]\nworlds: [warehouse]\nrenderings: [pgn]",
     r"sweep\.yaml:3: renderings: unknown rendering format 'pgn'"),
    ("models: [random]\nworlds: [warehouse]\nrepeats: 0", r"sweep\.yaml:3: repeats: "),
    ("models: [random]\nworlds: [warehouse]\nseedz: [1]", r"sweep\.yaml:3: seedz: Extra inputs"),
    ("worlds: [warehouse]", r"sweep\.yaml: models: Field required"),   # no line: not there
    ("models: [random]\nworlds: [warehouse]\nconcurrency: {openai: 0}",
     r"sweep\.yaml:3: concurrency: openai: must be at least 1"),
    ("models: [random\nworlds: x", r"sweep\.yaml:\d+:\d+: not valid YAML"),
    ("models: [openai/gpt-5]\nworlds: [warehouse]\n"
     "adapter_options: {openai/gpt-5: {api_key: fake-test-credential-in-a-spec}}",
     r"sweep\.yaml:3: adapter_options: openai/gpt-5: a spec holds no keys"),
    ("models: [openai-chat/m]\nworlds: [warehouse]\nadapter_options: {openai-chat/m: "
     "{api_key: not-needed, default_headers: {Authorization: Basic abcdefgh}}}",
     r"sweep\.yaml:3: adapter_options: openai-chat/m: a spec holds no keys"),
    ("- just a list", r"sweep\.yaml: a sweep spec is a mapping"),
])
def test_errors_name_the_file_and_the_field(tmp_path, text, message):
    with pytest.raises(SpecError, match=message):
        Sweep.from_yaml(write(tmp_path, text))


def test_errors_give_the_line_of_a_nested_field(tmp_path):
    text = ("name: nested\nmodels: [random]\nworlds: [warehouse]\nbudgets:\n"
            "  interaction_steps: [10]\n  reasoning_effort:\n    - low\n    - huge\n")
    with pytest.raises(SpecError) as error:
        Sweep.from_yaml(write(tmp_path, text))
    assert str(error.value).endswith("sweep.yaml:8: budgets.reasoning_effort.1: Input should be "
                                     "'minimal', 'low', 'medium', 'high', 'xhigh' or 'max'")


def test_the_same_settings_give_the_same_ids():
    first = [j.id for j in Sweep.from_data({**BASE, "models": ["random", "openai/gpt-5"],
                                            "seeds": [1, 2]}).expand()]
    again = [j.id for j in Sweep.from_data({**BASE, "seeds": [1, 2],
                                            "models": ["random", "openai/gpt-5"]}).expand()]
    assert first == again and len(first) == 4
    assert job_id({"a": 1, "b": 2}) == job_id({"b": 2, "a": 1})


def test_any_setting_change_changes_the_id():
    job = Sweep.from_data({**BASE, "models": ["openai/gpt-5"]}).expand()[0]
    other_values = {"model": "anthropic/claude-sonnet-4-5", "world": "gravity",
                    "family": "cd", "task": "gravity-cd", "task_digest": "0" * 16,
                    "interaction_steps": 50, "seed": 2, "repeat": 1, "prompt": "reflective",
                    "prompt_digest": "1" * 16, "rendering": "png", "history": 3,
                    "max_output_tokens": 100, "reasoning_effort": "low",
                    "thinking_budget": 2000, "temperature": 0.0, "tool_mode": "text", "v": 2}
    assert set(other_values) == set(job.settings), "a new setting needs a case here"
    for key, value in other_values.items():
        assert Job.of({**job.settings, key: value}).id != job.id, key


def test_the_budget_and_prompt_axes_reach_the_job_settings():
    spec = Sweep.from_data({**BASE, "models": ["openai/gpt-5"],
                            "budgets": {"interaction_steps": 30, "max_output_tokens": 500,
                                        "thinking_budget": 1024, "reasoning_effort": "low",
                                        "history": 5},
                            "prompts": "reflective", "renderings": "png+compact"})
    (job,) = spec.expand()
    s = job.settings
    assert (s["interaction_steps"], s["max_output_tokens"], s["thinking_budget"],
            s["reasoning_effort"], s["history"], s["prompt"], s["rendering"]) == (
        30, 500, 1024, "low", 5, "reflective", "png+compact")


def test_a_sweep_over_the_job_limit_is_refused_before_expansion(tmp_path, monkeypatch):
    text = "models: [random]\nworlds: [warehouse]\nfamilies: [mfp]\nrepeats: 100000000\n"
    monkeypatch.setattr(Sweep, "expand", lambda self: pytest.fail("expanded"))
    with pytest.raises(SpecError) as error:
        Sweep.from_yaml(write(tmp_path, text))
    assert str(error.value) == (
        f"{tmp_path / 'sweep.yaml'}:4: repeats: the sweep would make 100,000,000 jobs "
        f"(repeats 100,000,000), more than the limit of 1,000,000; split it into smaller "
        f"sweeps")


def test_the_job_limit_blames_the_largest_factor_and_counts_model_settings(tmp_path):
    seeds = ", ".join(str(s) for s in range(40_000))
    text = (f"models: [openai/gpt-5, random]\nworlds: [warehouse, easel]\n"
            f"seeds: [{seeds}]\nprompts: [default, reflective]\n"
            f"budgets: {{history: [full, 2, 4]}}\n")
    with pytest.raises(SpecError, match=r"sweep\.yaml:3: seeds: the sweep would make "
                                        r"1,680,000 jobs \(models 2 x worlds 2 x families 3 x "
                                        r"seeds 40,000 x prompts 2 x budgets\.history 3\)"):
        Sweep.from_yaml(write(tmp_path, text))
    # the same sweep for the local agents only is under the limit: prompts do not multiply them
    assert Sweep.from_data({"models": ["random"], "worlds": ["warehouse", "easel"],
                            "seeds": list(range(40_000)), "prompts": ["default", "reflective"]}
                           ).job_count() == 240_000


def test_the_job_count_is_the_number_of_jobs_expanded(tmp_path):
    spec = Sweep.from_data({"models": ["random", "openai/gpt-5"], "worlds": ["warehouse"],
                            "families": ["mfp", "cd"], "seeds": [1, 2], "repeats": 3,
                            "budgets": {"history": ["full", 3], "interaction_steps": [5, 9]},
                            "renderings": ["compact", "png"]})
    assert spec.job_count() == len(spec.expand()) == 2 * 2 * 2 * 3 * (1 + 4)
