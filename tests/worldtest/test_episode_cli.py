"""``llm-eval episode``: one episode of a shipped task, in-process via ``main([...])``."""

from __future__ import annotations

import json

import pytest

from llm_eval.cli import EXIT_OK, EXIT_USAGE, main


@pytest.mark.parametrize("family", ["mfp", "cd", "planning"])
def test_oracle_episode_prints_its_score(family, capsys):
    assert main(["episode", "warehouse", "--family", family, "--agent", "oracle"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith(f"warehouse-{family}: agent oracle (seed 1): score ")
    score = float(out.split("score ")[1].split()[0])
    assert score > 0.5
    assert "interaction 1 actions" in out


def test_json_output_and_seeded_random_agent(capsys):
    args = ["episode", "warehouse", "--family", "mfp", "--agent", "random", "--seed", "7",
            "--json", "--interaction-steps", "5"]
    assert main(args) == EXIT_OK
    first = json.loads(capsys.readouterr().out)
    assert first["task"] == "warehouse-mfp" and first["agent"] == "random"
    assert first["agent_seed"] == 7 and "steps" not in first
    assert first["interaction"]["steps"] <= 5
    assert first["score"] in (0.0, 1.0) and first["score"] == max(0.0, first["raw_reward"])
    assert main(args) == EXIT_OK
    assert json.loads(capsys.readouterr().out) == first        # same seed, same episode
    assert main([*args, "--steps"]) == EXIT_OK
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert steps and {"phase", "action", "valid", "observation"} <= set(steps[0])


@pytest.mark.parametrize("argv", [
    ["episode", "warehous", "--family", "cd", "--agent", "random"],
    ["tasks", "validate", "warehous", "--quick"],
    ["run", "--model", "random", "--worlds", "warehous", "-o", "{tmp}"],
], ids=["episode", "tasks validate", "run"])
def test_an_unknown_world_is_a_usage_error_naming_the_closest(capsys, tmp_path, argv):
    """The same mistake exits the same way whichever command it is given to: 2, a usage
    error (episode and tasks validate exited 1, as for a program's error)."""
    assert main([a.format(tmp=tmp_path / "run") for a in argv]) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert "unknown world 'warehous'; did you mean 'warehouse'" in err
    assert "Traceback" not in err and not (tmp_path / "run").exists()


@pytest.mark.parametrize("args", [
    ["episode", "warehouse", "--family", "maze", "--agent", "random"],
    ["episode", "warehouse", "--family", "cd", "--agent", "human"],
    ["episode", "warehouse", "--family", "cd"],
    ["episode", "warehouse", "--family", "cd", "--agent", "random", "--seed", "x"],
    ["episode", "warehouse", "--family", "cd", "--agent", "random", "--interaction-steps", "0"],
])
def test_usage_errors(args, capsys):
    assert main(args) == EXIT_USAGE
    assert "error" in capsys.readouterr().err
