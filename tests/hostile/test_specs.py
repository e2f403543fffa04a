"""The hostile-input corpus for sweep specs (issue 33): each input is a ``SpecError`` naming the
file, the line where there is one, and the setting at fault, with a message of bounded length,
in bounded time and memory.

Small inputs are files in ``specs/`` (their first comment says what each tries): alias bombs
(in ``adapter_options``, inline ``prices``, ``seeds``, mappings), a recursive alias, deep
nesting, a Python tag, a repeated key, wrong types and unknown keys. Large ones are generated
here at test time: 2,000,000 seeds (14 MB), seeds that multiply past the job limit, a
100,000-character value, thousands of bad values and of unknown keys, bytes that are not
UTF-8. The large ones, and the time and memory bounds, are in the slow tier; the default tier
runs the small files.
"""

from __future__ import annotations

import re
import time
import tracemalloc
from pathlib import Path

import pytest
from tiers import slow

from llm_eval.cli import main
from llm_eval.sweep import SpecError, Sweep

HERE = Path(__file__).parent / "specs"
LINE_BOUND = 600        # characters of one line of an error, path and position included
LINES_BOUND = 21        # the first 20 problems and how many more
TIME_BOUND = 5.0        # CPU seconds to refuse (unbounded reading takes minutes)
MEMORY_BOUND = 50_000_000   # bytes allocated before the refusal
TOO_LARGE = "the document is too large: an alias here takes it past 100,000 values"

# file -> what the error says after "specs/FILE:": its line (and column), the setting, words
CORPUS = {
    "alias_bomb_adapter_options.yaml": rf"10: adapter_options\.openai/gpt-5\.e\.7: {TOO_LARGE}",
    "alias_bomb_prices.yaml": rf"10: prices\.models\.e\.7: {TOO_LARGE}",
    "alias_bomb_seeds.yaml": rf"9: seeds\.e\.7: {TOO_LARGE}",
    "alias_bomb_mappings.yaml": rf"9: name\.m4\.4: {TOO_LARGE}",
    "recursive_alias.yaml": r"4: seeds\.1: a recursive alias",
    "deep_nesting.yaml": r"4: name(\.0){31}: nested more than 32 levels deep",
    "python_object.yaml": r"4:7: name: not valid YAML: could not determine a constructor for "
                          r"the tag 'tag:yaml\.org,2002:python/object/apply:os\.system'",
    "duplicate_key.yaml": r"5:1: not valid YAML: key 'seeds' given twice \(first on line 4\)",
    "not_a_mapping.yaml": r" a sweep spec is a mapping of settings, got list",
    "unknown_key.yaml": r"4: seedz: Extra inputs are not permitted",
    "unknown_nested_key.yaml": r"4: budgets\.interaction_step: Extra inputs are not permitted",
    "wrong_type_models.yaml": r"2: models\.0: Input should be a valid string",
    "wrong_type_seeds.yaml": r"4: seeds\.1: Input should be a valid integer",
    "wrong_type_repeats.yaml": r"4: repeats: Input should be a valid integer",
    "wrong_type_budgets.yaml": r"4: budgets: Input should be a valid dictionary",
    "wrong_type_concurrency.yaml": r"4: concurrency\.openai: Input should be a valid integer",
    "wrong_type_worlds.yaml": r"3: worlds\.0: Input should be a valid string",
    "huge_repeats.yaml": r"4: repeats: the sweep would make at least 1,000,000,000 jobs",
}


def refused(path: Path, bounded: bool = False) -> str:
    """The SpecError ``Sweep.from_yaml(path)`` raises, its lines each of bounded length;
    ``bounded``: within the time bound, and (read again, traced) the memory bound."""
    start = time.process_time()   # CPU time: the machine's load must not decide the test
    with pytest.raises(SpecError) as error:
        Sweep.from_yaml(path)
    elapsed = time.process_time() - start
    message = str(error.value)
    lines = message.splitlines()
    assert len(lines) <= LINES_BOUND, len(lines)
    assert all(len(line) <= LINE_BOUND for line in lines), max(map(len, lines))
    if bounded:
        assert elapsed < TIME_BOUND, f"refused after {elapsed:.2f} s"
        tracemalloc.start()   # slows Python down: the time is measured without it
        try:
            with pytest.raises(SpecError):
                Sweep.from_yaml(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < MEMORY_BOUND, f"{peak:,} bytes allocated before the refusal"
    return message


def test_the_corpus_is_the_files():
    assert sorted(CORPUS) == sorted(p.name for p in HERE.glob("*.yaml"))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_hostile_spec_is_refused_naming_its_setting(name):
    message = refused(HERE / name)
    assert message.startswith(f"{HERE / name}:"), message
    assert re.match(CORPUS[name], message[len(str(HERE / name)) + 1:]), message


@slow
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_hostile_spec_is_refused_in_bounded_time_and_memory(name):
    refused(HERE / name, bounded=True)


@slow
def test_an_alias_bomb_run_from_the_command_line_is_a_usage_error(tmp_path, capsys):
    assert main(["run", str(HERE / "alias_bomb_adapter_options.yaml"),
                 "-o", str(tmp_path / "run")]) == 2
    assert TOO_LARGE in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def _generated(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "hostile.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


HEAD = "models: [random]\nworlds: [hunters]\n"
GENERATED = {
    "two_million_seeds": (
        lambda: HEAD + "seeds: [" + ",".join(map(str, range(2_000_000))) + "]\n",
        r": \(document\): 14,888,934 bytes, more than the limit of 1,048,576"),
    "seeds_past_the_job_limit": (
        lambda: "models: [random]\nworlds: [hunters, garden]\nrepeats: 100\nseeds: ["
        + ",".join(map(str, range(100_000))) + "]\n",
        r":4: seeds: the sweep would make at least 1,000,200 jobs"),
    "a_huge_value": (
        lambda: HEAD + "name: " + "x" * 100_000 + "\n",
        r":3: name: a value of 100,000 characters, more than the limit of 65,536"),
    "a_long_unknown_world": (
        lambda: "models: [random]\nworlds: [" + "w" * 60_000 + "]\n",
        r":2: worlds: unknown world 'wwww[w]*\.\.\. \(60,01\d characters in all\)"),
    "thousands_of_bad_seeds": (
        lambda: HEAD + "seeds: [" + ",".join(['"x"'] * 5_000) + "]\n",
        r":3: seeds\.0: Input should be a valid integer\n(.*\n){19}.*and 4,980 more errors"),
    "thousands_of_unknown_keys": (
        lambda: HEAD + "".join(f"k{i}: {i}\n" for i in range(5_000)),
        r":3: k0: Extra inputs are not permitted\n(.*\n){19}.*and 4,980 more errors"),
    "not_utf8": (
        lambda: b"models: [random]\nworlds: [\xff\xfe]\n",
        r": not UTF-8 text \(byte 26: b'\\xff'\)"),
}


@slow
@pytest.mark.parametrize("name", sorted(GENERATED))
def test_each_large_hostile_spec_is_refused_in_bounded_time_and_memory(tmp_path, name):
    make, expected = GENERATED[name]
    path = _generated(tmp_path, make())
    message = refused(path, bounded=True)
    assert message.startswith(str(path)), message
    assert re.match(expected, message[len(str(path)):]), message
