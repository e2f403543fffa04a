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
        f"{tmp_path / 'sweep.yaml'}:4: repeats: the sweep would make at least 100,000,000 "
        f"jobs (repeats 100,000,000, read so far), more than the limit of 1,000,000; split it "
        f"into smaller sweeps")


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


# -- hostile sizes: refused while the file is read, before anything large is built -------------
def alias_bomb(indent: str) -> str:
    """Nine levels of ten aliases each: 10**9 values in about 500 bytes of YAML."""
    lines = [f"{indent}a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(8):
        prev, cur = "abcdefghi"[level], "abcdefghi"[level + 1]
        lines.append(f"{indent}{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def refused_quickly(path, match: str) -> str:
    """``Sweep.from_yaml(path)`` is a SpecError matching ``match`` within 5 s of this process's
    CPU time (not wall time: the machine's load must not decide it; unbounded reading takes
    minutes), and (read again under tracemalloc, which slows Python down several times) within
    50 MB."""
    import time
    import tracemalloc

    start = time.process_time()
    with pytest.raises(SpecError, match=match) as error:
        Sweep.from_yaml(path)
    elapsed = time.process_time() - start
    assert elapsed < 5.0, f"refused after {elapsed:.1f} s of CPU time"
    tracemalloc.start()
    try:
        with pytest.raises(SpecError, match=match):
            Sweep.from_yaml(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50_000_000, f"{peak:,} bytes allocated before the refusal"
    return str(error.value)


@pytest.mark.parametrize("where, text", [
    ("adapter_options", "models: [openai/gpt-5]\nworlds: [hunters]\nadapter_options:\n"
                        "  openai/gpt-5:\n" + alias_bomb("    ")),
    ("prices", "models: [openai/gpt-5]\nworlds: [hunters]\nprices:\n  models:\n"
               + alias_bomb("    ")),
    ("seeds", "models: [random]\nworlds: [hunters]\nseeds:\n" + alias_bomb("  ")),
    ("name", "models: [random]\nworlds: [hunters]\nname:\n" + alias_bomb("  ")),
])
def test_an_alias_bomb_anywhere_in_a_spec_is_refused_at_once(tmp_path, where, text):
    message = refused_quickly(write(tmp_path, text),
                              rf"sweep\.yaml:\d+: {where}\.[^:]*: the document is too large: "
                              rf"an alias here takes it past 100,000 values")
    assert "\n" not in message


def test_an_alias_bomb_in_a_price_file_is_refused_naming_the_file(tmp_path):
    from llm_eval.pricing import PriceFileError, load_prices

    path = tmp_path / "prices.yaml"
    path.write_text("models:\n" + alias_bomb("  "))
    with pytest.raises(PriceFileError, match=r"prices\.yaml:\d+: models\.\w\.\d: the document "
                                             r"is too large"):
        load_prices(path)


def test_a_spec_of_two_million_seeds_is_refused_by_its_size_unread(tmp_path):
    seeds = ",".join(str(s) for s in range(2_000_000))
    path = write(tmp_path, f"models: [random]\nworlds: [hunters]\nseeds: [{seeds}]\n")
    refused_quickly(path, r"sweep\.yaml: \(document\): 14,888,934 bytes, more than the limit "
                          r"of 1,048,576 for a settings file")


def test_seeds_are_counted_as_the_spec_is_read(tmp_path, monkeypatch):
    """Under the size limit, the job count is checked as values are read: refused at the seed
    that takes it over the limit, before validation (or the rest of the file) is reached."""
    monkeypatch.setattr(Sweep, "model_validate", lambda data: pytest.fail("validated"))
    seeds = ",".join(str(s) for s in range(100_000))
    path = write(tmp_path, f"models: [random]\nworlds: [hunters, garden]\nrepeats: 100\n"
                           f"seeds: [{seeds}]\n")
    refused_quickly(path, r"sweep\.yaml:4: seeds: the sweep would make at least 1,000,200 jobs "
                          r"\(worlds 2 x seeds 5,001 x repeats 100, read so far\), more than "
                          r"the limit of 1,000,000")


def test_the_early_count_is_a_lower_bound_repeated_values_are_one(tmp_path):
    """A spec that names one seed many times is one seed: not refused by the count."""
    seeds = ",".join(["7"] * 40_000 + ["0x7"])
    spec = Sweep.from_yaml(write(tmp_path, f"models: [random]\nworlds: [hunters, garden]\n"
                                           f"repeats: 100\nseeds: [{seeds}]\n"))
    assert spec.seeds == [7] and spec.job_count() == 2 * 3 * 100


def test_thousands_of_bad_values_are_reported_as_the_first_twenty(tmp_path):
    seeds = ",".join(['"x"'] * 5000)
    with pytest.raises(SpecError) as error:
        Sweep.from_yaml(write(tmp_path, f"models: [random]\nworlds: [hunters]\n"
                                        f"seeds: [{seeds}]\n"))
    lines = str(error.value).splitlines()
    assert len(lines) == 21 and lines[-1].endswith("sweep.yaml: and 4,980 more errors")
