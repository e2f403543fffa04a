"""The shared argument types: the value or an error message argparse shows with the option."""

from __future__ import annotations

import argparse

import pytest

from llm_eval.argtypes import integer, integer_at_least, integer_between


def test_integers_parse_in_base_10_only():
    assert integer("-12") == -12 and integer("010") == 10
    for bad in ("0x10", "1.5", "", "ten"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be an integer"):
            integer(bad)


@pytest.mark.parametrize("parse,text,message", [
    (integer_at_least(0), "-1", "must be 0 or more, got -1"),
    (integer_at_least(1), "0", "must be at least 1, got 0"),
    (integer_between(4, 256, "pixels"), "257", "must be between 4 and 256 pixels, got 257"),
    (integer_between(1, 3), "0", "must be between 1 and 3, got 0"),
])
def test_bounds_name_the_limit_and_the_value(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as error:
        parse(text)
    assert str(error.value) == message


def test_values_on_the_bounds_are_accepted():
    assert integer_at_least(0)("0") == 0
    assert integer_between(4, 256)("4") == 4 and integer_between(4, 256)("256") == 256
