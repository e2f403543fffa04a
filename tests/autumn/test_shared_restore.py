"""A restored state shares the saved values (state.py): nothing a program does after a restore
may change the saved state, and every frame must be the one a copying restore gives.

Each program below changes a value in place in one of the ways the interpreter allows: an
assignment moves an identity onto a value the saved state holds, a render assigns into a
cell's snapshot, a field assignment, ``rotate``. Without the check at that site the saved
state is changed by the play after a restore, and the second restore plays differently."""

from __future__ import annotations

import pytest

from llm_eval.autumn import Interpreter
from llm_eval.autumn import interpreter as interpreter_module
from llm_eval.autumn import state as state_module
from llm_eval.autumn.values import AList, CellV, Obj, Pos, RElem
from llm_eval.errors import AutumnRuntimeError

# (= a b) moves a's identity onto b's value, which the saved state holds after a restore;
# (prev a) finds a global by identity, so the move shows in the frames; down is an error
IDENTITY_MOVE = """(program
  (= GRID_SIZE 8)
  (object Box (: c String) (Cell 0 0 c))
  (= a (initnext (Box "red" (Position 1 1)) (prev a)))
  (= b (initnext (Box "blue" (Position 3 3)) (prev b)))
  (on left (= a b))
  (on right (= b (updateObj b "origin" (Position (% (+ 1 (.. (.. b origin) x)) 8) 3))))
  (on up (= a (updateObj a "c" "green")))
  (on down (= a (head (list))))
)"""

# the cell's x part assigns k, which lives in the cell's snapshot: every render moves it
SNAPSHOT_WRITE = """(program
  (= GRID_SIZE 8)
  (= bump (--> k (Cell (let (= k (+ k n)) (% k 5)) 0 "red")))
  (object Blob (: n Int) (bump 0))
  (= blob (initnext (Blob 1 (Position 1 1)) (prev blob)))
)"""

# a part that, once n > 1, defines a new name in the cell's snapshot (every copy made by
# updateObj shares the cell)
SNAPSHOT_NEW_NAME = """(program
  (= GRID_SIZE 8)
  (= mk (--> k (Cell (+ k (if (> n 1) then (* 0 (= fresh n)) else 0)) 0 "red")))
  (object Blob (: n Int) (mk 1))
  (= blob (initnext (Blob 0 (Position 1 1)) (prev blob)))
  (on right (= blob (updateObj blob "n" (+ (.. blob n) 1))))
)"""

FIELD_ASSIGN = """(program
  (= GRID_SIZE 8)
  (object Box (: c String) (Cell 0 0 c))
  (= a (initnext (Box "red" (Position 1 1)) (prev a)))
  (on left (= (.. a c) "green"))
  (on right (= (.. (.. a origin) x) (% (+ 1 (.. (.. a origin) x)) 8)))
)"""

ROTATE = """(program
  (= GRID_SIZE 8)
  (object Bar (Cell 0 0 "red") (Cell 1 0 "red") (Cell 2 0 "blue"))
  (= bar (initnext (Bar (Position 3 3)) (prev bar)))
  (on left (= bar (rotate bar)))
)"""

STEADY = """(program
  (= GRID_SIZE 8)
  (object Box (: c String) (Cell 0 0 c))
  (= a (initnext (Box "red" (Position 1 1)) (prev a)))
  (on right (= a (updateObj a "origin" (Position (% (+ 1 (.. (.. a origin) x)) 8) 1))))
)"""


def _load(program: str) -> Interpreter:
    it = Interpreter()
    it.run_script(program, randomSeed=7)
    return it


def _prepared(program: str) -> Interpreter:
    """A program loaded and played a little (its state saved after this in the tests)."""
    it = _load(program)
    for a in ("right", "noop"):
        _do(it, a)
    return it


def _do(it: Interpreter, action: str) -> str:
    if action != "noop":
        getattr(it, action)()
    it.step()
    return it.render_all()


def _deep(saved: state_module.SavedState) -> object:
    """Everything a saved state holds, identities included (``state_key`` leaves them out)."""
    def walk(v):
        c = v.__class__
        if c is Obj:
            return ("O", v.ident, tuple((k, walk(x)) for k, x in v.fields.items()))
        if c is AList:
            return ("L", v.ident, tuple(walk(x) for x in v))
        if c is Pos:
            return ("P", v.ident, v.x, v.y)
        if c is RElem:
            return ("E", v.ident, walk(v.position), walk(v.color))
        if c is CellV:
            return ("C", v.ident, v.fx, v.fy, v.fc, id(v.nx), id(v.ny), id(v.nc),
                    tuple((k, walk(x)) for k, x in v.snap.items()))
        return v if c in (int, bool, str) else (c.__name__, getattr(v, "ident", None))
    gvars, snapshot = saved.data[0], saved.data[1]
    return (tuple((k, walk(v)) for k, v in gvars.items()),
            None if snapshot is None else tuple((k, walk(v)) for k, v in snapshot.items()))


def _share_always(monkeypatch) -> None:
    """Share on every restore, also for programs that assign fields or rotate (which
    ``Interpreter.restore`` gives copies at once): their check sites are then what keeps
    the saved state intact."""
    def restore(self, saved):
        state_module.restore(self, saved, share=True)
        self._shared, self._since = saved, []
    monkeypatch.setattr(Interpreter, "restore", restore)


def _count_thaws(monkeypatch) -> list[int]:
    count = [0]
    real = interpreter_module.Interpreter._thaw

    def thaw(self):
        count[0] += 1
        return real(self)
    monkeypatch.setattr(interpreter_module.Interpreter, "_thaw", thaw)
    return count


CASES = {
    "identity move": (IDENTITY_MOVE, ["left", "right", "noop", "up", "left", "noop"]),
    "snapshot write": (SNAPSHOT_WRITE, ["noop", "noop", "noop"]),
    "snapshot new name": (SNAPSHOT_NEW_NAME, ["noop", "right", "noop"]),
    "field assignment": (FIELD_ASSIGN, ["right", "left", "noop", "right"]),
    "rotate": (ROTATE, ["left", "noop", "left", "left"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_restored_state_plays_as_a_copy_and_the_saved_state_is_untouched(case, monkeypatch):
    program, actions = CASES[case]
    _share_always(monkeypatch)
    thaws = _count_thaws(monkeypatch)
    straight = _prepared(program)
    expected = [_do(straight, a) for a in actions]

    it = _prepared(program)
    saved = it.snapshot()
    before = _deep(saved)
    for _ in range(3):     # the same play from the same restored state, three times
        it.restore(saved)
        assert [_do(it, a) for a in actions] == expected
        assert _deep(saved) == before
    assert thaws[0] >= 3   # the play changed a shared value after each restore


def test_a_state_that_changes_nothing_in_place_shares_its_values_throughout(monkeypatch):
    thaws = _count_thaws(monkeypatch)
    it = _load(STEADY)
    _do(it, "right")
    saved = it.snapshot()
    it.restore(saved)
    assert it._rt.G.vars["a"] is saved.data[0]["a"]     # shared, not copied
    frames = [_do(it, "right") for _ in range(5)]
    it.restore(saved)
    assert [_do(it, "right") for _ in range(5)] == frames
    assert thaws[0] == 0 and it._shared is saved


def test_a_program_that_changes_values_in_place_gets_copies_on_restore():
    it = _load(FIELD_ASSIGN)
    saved = it.snapshot()
    it.restore(saved)
    assert it._shared is None and it._rt.frozen is None
    assert it._rt.G.vars["a"] is not saved.data[0]["a"]


def test_a_long_play_after_a_restore_stops_sharing_and_stays_exact(monkeypatch):
    """After ``_MAX_SHARED_OPS`` operations the running state takes copies (a replay stays
    short); an identity moved after that changes nothing saved."""
    straight = _load(IDENTITY_MOVE)
    _do(straight, "right")
    actions = ["right", "noop"] * 20 + ["left", "up", "right"]
    expected = [_do(straight, a) for a in actions]
    it = _load(IDENTITY_MOVE)
    _do(it, "right")
    saved = it.snapshot()
    before = _deep(saved)
    for _ in range(2):
        it.restore(saved)
        got = [_do(it, a) for a in actions]
        assert got == expected and it._shared is None
        assert _deep(saved) == before


def test_an_error_after_a_restore_leaves_the_saved_state_as_it_was():
    program = IDENTITY_MOVE
    it = _load(program)
    _do(it, "noop")
    saved = it.snapshot()
    before = _deep(saved)
    it.restore(saved)
    _do(it, "left")
    with pytest.raises(AutumnRuntimeError):
        _do(it, "down")
    assert it._shared is None and _deep(saved) == before
    it.restore(saved)
    straight = _load(program)
    _do(straight, "noop")
    assert _do(it, "left") == _do(straight, "left")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_state_saved_from_a_restored_one_shares_its_values_and_both_stay_intact(case,
                                                                                 monkeypatch):
    """A save while the running state shares a saved state's values keeps sharing them (it
    copies only what the play made); the play after restoring the new state changes values
    the first state holds too, and each state, restored later, plays as a copy would."""
    program, actions = CASES[case]
    _share_always(monkeypatch)
    thaws = _count_thaws(monkeypatch)
    straight = _prepared(program)
    first = [_do(straight, "noop")]
    rest = [_do(straight, a) for a in actions]

    it = _prepared(program)
    parent = it.snapshot()
    it.restore(parent)
    assert [_do(it, "noop")] == first
    child = it.snapshot()
    parent_before, child_before = _deep(parent), _deep(child)
    for _ in range(2):
        it.restore(child)
        assert [_do(it, a) for a in actions] == rest
        it.restore(parent)
        assert [_do(it, a) for a in ["noop", *actions]] == first + rest
    assert _deep(parent) == parent_before and _deep(child) == child_before
    assert thaws[0] >= 4


def test_a_save_while_sharing_copies_only_what_changed():
    it = _load(STEADY)
    saved = it.snapshot()
    it.restore(saved)
    _do(it, "noop")        # changes nothing but the clock-free globals' identities: none
    child = it.snapshot()
    assert child.data[0]["a"] is saved.data[0]["a"] and child.parent is saved
    _do(it, "right")       # a new value of a: the next save copies it
    grandchild = it.snapshot()
    assert grandchild.data[0]["a"] is not saved.data[0]["a"]


# left defines a new global, whose name joins the table's order and the render order
NEW_GLOBAL = """(program
  (= GRID_SIZE 8)
  (object Box (: c String) (Cell 0 0 c))
  (= a (initnext (Box "red" (Position 1 1)) (prev a)))
  (on left (= extra (Box "blue" (Position 4 4))))
  (on right (= a (updateObj a "origin" (Position (% (+ 1 (.. (.. a origin) x)) 8) 1))))
)"""


def test_a_global_defined_after_a_restore_is_not_in_the_saved_state():
    straight = _load(NEW_GLOBAL)
    _do(straight, "right")
    expected = [_do(straight, a) for a in ("right", "noop")]
    it = _load(NEW_GLOBAL)
    _do(it, "right")
    saved = it.snapshot()
    order, history = list(it._rt.global_order.order), list(it._rt.history)
    it.restore(saved)
    assert '"extra"' in _do(it, "left")
    assert "extra" in it._rt.global_order and "extra" not in saved.data[2]
    it.restore(saved)
    assert [_do(it, a) for a in ("right", "noop")] == expected
    assert list(it._rt.global_order.order) == order and list(it._rt.history) == history
    assert saved.data[3] == history


def test_saves_while_sharing_chain_at_most_a_few_states():
    """Each state saved while sharing keeps the one it shares with alive; a rollout that
    saves and restores at every step must not keep its whole past (memory would grow with
    the square of its length)."""
    it = _load(STEADY)
    saved = it.snapshot()
    depths = []
    for _ in range(40):
        it.restore(saved)
        _do(it, "right")
        saved = it.snapshot()
        depths.append(saved.depth)
    assert max(depths) == state_module._MAX_CHAIN and depths.count(0) >= 4
    chain, s = 0, saved
    while s.parent is not None:
        chain, s = chain + 1, s.parent
    assert chain <= state_module._MAX_CHAIN
