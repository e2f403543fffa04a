"""Clicks that no ``clicked`` query catches (``Interpreter.begin_click_probe`` and
``end_click_probe``): a noop tick logs its queries, and a click outside their cells must tick
as the noop did (the same frame and state key). The probe must say None whenever a click could
tell itself apart: a bare query, code that reads ``click`` outside a body only a query runs, a
query whose render fails, work past the budget, an evaluated text that names ``click``, a probe without exactly one tick."""

from __future__ import annotations

import random

import pytest
from tiers import tier

from llm_eval.actions import apply_action, parse_action
from llm_eval.autumn import Interpreter
from llm_eval.errors import AutumnError, AutumnLimitError
from llm_eval.tasks.trajectory import make
from llm_eval.tasks.validate import random_actions
from llm_eval.worlds import world_names, world_spec

GUARDED = """(program
  (= GRID_SIZE 8)
  (object Dot (: n Number) (Cell 0 0 (if (> n 1) then "red" else "blue")))
  (object Wall (Cell 0 0 "gray"))
  (= dot (initnext (Dot 0 (Position 1 1)) (prev dot)))
  (= walls (initnext (map (--> i (Wall (Position i 6))) (range 0 8)) (prev walls)))
  (= hits (initnext 0 (prev hits)))
  (on (clicked dot) (= dot (updateObj dot "n" (+ (.. dot n) 1))))
  (on (clicked walls) (= walls (removeObj walls (--> w (== (.. w origin) click)))))
  (on left (= dot (moveLeft dot)))
  (on right (= dot (moveRight dot)))
  (on (| (clicked dot) down) (= hits (+ hits 1))))"""

# after a click on the dot has defined `click`, a later tick copies it: a click elsewhere is
# told apart from none
UNGUARDED = GUARDED.replace('(= hits (+ hits 1))))', '''(= hits (+ hits 1)))
  (= where (initnext (Position 0 0) (prev where)))
  (on (> hits 0) (= where click)))''')
# a lambda made under the query is kept: a later tick calls it, and it reads `click`
ESCAPING = UNGUARDED.replace("(on (> hits 0) (= where click)))", """(= reader (initnext (--> p p) (prev reader)))
  (on (clicked dot) (= reader (--> p click)))
  (on true (= where (reader (Position 0 0)))))""")
# the same kept lambda, made inside one that map applies and lets go
ESCAPING_INNER = UNGUARDED.replace("(on (> hits 0) (= where click)))", """(= readers (initnext (list (--> p p)) (prev readers)))
  (on (clicked dot) (= readers (map (--> d (--> p click)) (list dot))))
  (on true (= where (let (= r (head readers)) (r (Position 0 0))))))""")
BARE = GUARDED.replace("(on left (= dot (moveLeft dot)))",
                       "(on clicked (= hits (+ hits 2)))")
BOUND = GUARDED.replace("(on left (= dot (moveLeft dot)))",
                        "(on left (let (= click 3) (= hits click)))")
IN_PLACE = GUARDED.replace("(on left (= dot (moveLeft dot)))",
                           "(on left (= (.. dot n) 5))")
# a tick that counts more work than the load or a render
BUSY = GUARDED.replace("(on left (= dot (moveLeft dot)))",
                       "(on true (= hits (length (range 0 40))))")
# the query's object only renders once a click is pending: its cell's colour is a Number
FAILING = GUARDED.replace("(on left (= dot (moveLeft dot)))", """(object Bad (Cell 0 0 (+ 1 2)))
  (on (clicked (Bad (Position 4 4))) (= hits 9))""")


def _probe(it: Interpreter):
    it.begin_click_probe()
    apply_action(it, parse_action("noop"))
    it.step()
    return it.end_click_probe()


def _after(it: Interpreter, saved, action: str):
    it.restore(saved)
    apply_action(it, parse_action(action))
    it.step()
    return it.render_frame(), it.state_key()


def _check_claims(it: Interpreter, size: int, cells=None) -> frozenset | None:
    """Probe the noop from the current state; every click outside the cells it names must
    give the noop's frame and state key. Returns the probe (the state is left as it was)."""
    saved = it.snapshot()
    catching = _probe(it)
    noop = (it.render_frame(), it.state_key())
    if catching is not None:
        for x, y in cells or [(x, y) for y in range(size) for x in range(size)]:
            if (x, y) not in catching:
                assert _after(it, saved, f"click {x} {y}") == noop, (x, y)
    it.restore(saved)
    return catching


def _loaded(text: str, **options) -> Interpreter:
    it = Interpreter(**options)
    it.run_script(text, seed=5)
    it.render_frame()
    return it


def _play(it: Interpreter, actions: list[str]) -> None:
    for action in actions:
        apply_action(it, parse_action(action))
        it.step()
        it.render_frame()


def test_a_guarded_program_names_the_cells_its_queries_catch():
    it = _loaded(GUARDED)
    catching = _check_claims(it, 8)
    assert catching == {(1, 1)} | {(i, 6) for i in range(8)}
    _play(it, ["click 3 6", "right", "click 2 1", "noop"])   # a wall gone, the dot moved
    catching = _check_claims(it, 8)
    assert catching == {(2, 1)} | {(i, 6) for i in range(8) if i != 3}


@pytest.mark.parametrize("text,why", [
    (UNGUARDED, "reads click outside a guarded body"),
    (ESCAPING, "keeps a lambda that reads click"),
    (ESCAPING_INNER, "keeps a lambda made in an applied one"),
    (BARE, "a bare clicked"),
    (BOUND, "reads a click of its own outside a guarded body"),
    (FAILING, "a query whose render fails"),
])
def test_the_probe_knows_nothing_when_a_click_could_tell(text, why):
    it = _loaded(text)
    _play(it, ["noop", "down"] if text is FAILING else ["click 1 1", "noop", "down"])
    assert _check_claims(it, 8) is None, why


def test_objects_changed_in_place_keep_the_claims():
    """A query renders its object as it is when asked, whatever is changed in place later."""
    it = _loaded(IN_PLACE)
    assert not it._rt.render_cache
    for action in ["click 1 1", "left", "noop", "click 1 1"]:
        _play(it, [action])
        assert _check_claims(it, 8) is not None


def test_a_probe_without_exactly_one_tick_knows_nothing():
    it = _loaded(GUARDED)
    it.begin_click_probe()
    assert it.end_click_probe() is None
    it.begin_click_probe()
    _play(it, ["noop", "noop"])
    assert it.end_click_probe() is None


def test_a_click_elsewhere_is_told_apart_where_the_probe_knows_nothing():
    """What the None above protects: in UNGUARDED and the ESCAPING programs a click that no
    query catches does change the state, and in FAILING it fails."""
    for text in (UNGUARDED, ESCAPING, ESCAPING_INNER):
        it = _loaded(text)
        _play(it, ["click 1 1", "noop"])
        saved = it.snapshot()
        _probe(it)
        noop = it.state_key()
        assert _after(it, saved, "click 5 3")[1] != noop
    it = _loaded(FAILING)
    with pytest.raises(AutumnError):
        _play(it, ["click 6 2"])


def test_work_past_the_budget_is_told_apart():
    """The queries' renders count work only with a click pending: a budget the noop tick
    meets but the click's tick does not leaves the probe knowing nothing."""
    it = _loaded(BUSY)
    it.begin_click_probe()
    log = it._rt.click_log
    _play(it, ["noop"])
    assert it.end_click_probe() is not None
    used = it._limits.max_work - it._rt.tick_left
    tight = _loaded(BUSY, work_budget=used + log.work - 1)
    assert _check_claims(tight, 8) is None
    with pytest.raises(AutumnLimitError):
        _play(tight, ["click 5 3"])
    enough = _loaded(BUSY, work_budget=used + log.work)
    assert _check_claims(enough, 8) is not None
    _play(enough, ["click 5 3"])


def test_an_evaluated_text_naming_click_ends_the_probe_for_good():
    it = _loaded(GUARDED)
    assert _check_claims(it, 8) is not None
    it.evaluate("+ hits 0")
    assert _check_claims(it, 8) is not None
    it.evaluate("= clicks (--> p (== p click))")
    assert _check_claims(it, 8) is None


# the query's object is held in a field: only the query renders it
HELD = GUARDED.replace("(on left (= dot (moveLeft dot)))", """(object Holder (: inner Dot) (Cell 0 0 "white"))
  (= holder (initnext (Holder (Dot 0 (Position 2 2)) (Position 7 7)) (prev holder)))
  (on (clicked (.. holder inner)) (= hits 5))""")


def test_the_probe_leaves_the_noop_as_it_was():
    """A probed noop gives the frame, state key and work of a noop alone, and keeps nothing
    on the objects its queries render."""
    plain, probed = _loaded(HELD), _loaded(HELD)
    for it in (plain, probed):
        _play(it, ["right", "noop"])     # no click yet: only a query would render the inner dot
    apply_action(plain, parse_action("noop"))
    plain.step()
    _probe(probed)
    assert plain._rt.tick_left == probed._rt.tick_left
    assert plain.render_frame() == probed.render_frame()
    assert plain.state_key() == probed.state_key()
    inner = [it._rt.G.vars["holder"].fields["inner"] for it in (plain, probed)]
    assert inner[0].rendered is None and inner[1].rendered is None
    assert _check_claims(probed, 8) == {(2, 2), (2, 1)} | {(i, 6) for i in range(8)}


GUARDED_WORLDS = ["buoy", "conveyor", "elevator", "gravity", "hunters", "icepond", "invaders",
                  "keys", "magnets", "mirrors", "patrol", "relay", "reservoir", "rover", "tilt",
                  "traffic", "warehouse"]


def test_the_worlds_whose_clicks_are_guarded():
    guarded = [n for n in world_names() if make(n, 3).interpreter._rt.clicks_guarded]
    assert guarded == GUARDED_WORLDS


@pytest.mark.parametrize("name", [pytest.param(n, marks=tier(n)) for n in GUARDED_WORLDS])
def test_clicks_no_query_catches_tick_as_the_noop_in_every_guarded_world(name):
    world = make(name, 3)
    it = world.interpreter
    size = world_spec(name).size
    rng = random.Random(name)
    known = 0
    for action in random_actions(rng, size, 30):
        world.step(action)
        cells = [(rng.randrange(size), rng.randrange(size)) for _ in range(12)]
        catching = _check_claims(it, size, cells)
        known += catching is not None
    assert known == 30
