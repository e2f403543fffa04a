"""Saving, restoring and fingerprinting the whole state of a running program.

Searches (the oracle's planner) and repeated rollouts need to go back to a state without
replaying every action from the start, and to recognise states they have seen.

- ``save(interpreter)`` copies everything a tick can change: the global table (values deeply,
  since a few operations mutate values in place: field assignment, ``rotate``, identities moved
  by assignments), the global table's hash order and definition history, ``prev``'s snapshot,
  the random generator, inputs, occupancy, rule coverage and the step count.
  ``restore(interpreter, saved)`` puts it back; a saved state can be restored any number of
  times. Compiled code, syntax trees, object classes and builtins are shared, never copied:
  they do not change while a program runs, and the compiled code recognises builtins by
  identity.
- ``state_key(interpreter)`` is a hashable fingerprint: equal keys mean equal futures for
  equal inputs (the global values up to identity numbers, and the random generator's state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .values import AList, BoundRender, Builtin, CellThunk, CellV, Lambda, Obj, Pos, RElem

if TYPE_CHECKING:
    from .interpreter import Interpreter

__all__ = ["SavedState", "save", "restore", "state_key"]


class SavedState:
    """An opaque saved state of one interpreter (see ``save``)."""

    __slots__ = ("owner", "data")

    def __init__(self, owner: int, data: tuple) -> None:
        self.owner = owner
        self.data = data


def save(it: "Interpreter") -> SavedState:
    rt = it._loaded()
    return SavedState(id(rt), _capture(it))


def _capture(it: "Interpreter") -> tuple:
    rt = it._rt
    memo: dict[int, object] = {}
    gvars = {k: _copy(v, memo) for k, v in rt.G.vars.items()}
    snapshot = (None if rt.snapshot is None
                else {k: _copy(v, memo) for k, v in rt.snapshot.items()})
    return (gvars, snapshot, rt.global_order.copy(), list(rt.history), dict(rt.first_defined),
            dict(rt.annotations), set(rt.occupied), rt.rng_state, rt.click, dict(rt.arrows),
            [h.covered for h in rt.handlers], it.steps, it._broken, set(rt.updated))


def restore(it: "Interpreter", saved: SavedState) -> None:
    rt = it._loaded()
    if saved.owner != id(rt):
        raise ValueError("this state was saved from another interpreter")
    (gvars, snapshot, order, history, first, annotations, occupied, rng, click, arrows,
     covered, steps, broken, updated) = saved.data
    memo: dict[int, object] = {}    # copy again: the saved state must stay as it was
    rt.G.vars.clear()               # the same dict object: compiled code holds it
    rt.G.vars.update({k: _copy(v, memo) for k, v in gvars.items()})
    rt.snapshot = None if snapshot is None else {k: _copy(v, memo) for k, v in snapshot.items()}
    rt.global_order = order.copy()
    rt.history = list(history)
    rt.first_defined = dict(first)
    rt.annotations = dict(annotations)
    rt.occupied = set(occupied)
    rt._render_order = None
    rt.rng_state = rng
    rt.click = click
    rt.arrows.clear()
    rt.arrows.update(arrows)
    for h, c in zip(rt.handlers, covered):
        h.covered = c
    rt.updated = set(updated)
    it.steps = steps
    it._broken = broken


def _copy(v, memo: dict):
    """A copy of a run-time value that shares nothing mutable with it (sharing between the
    values copied with one ``memo`` is kept: ``prev``'s snapshot holds the same objects)."""
    c = v.__class__
    if c is int or c is bool or c is str or c is Builtin or v is None:
        return v       # builtins are recognised by identity, and never change
    got = memo.get(id(v))
    if got is not None:
        return got
    if c is Obj:
        new = Obj.__new__(Obj)
        memo[id(v)] = new
        new.cls = v.cls
        new.rendered = v.rendered          # a tuple of tuples: shared safely
        new.fields = {k: _copy(x, memo) for k, x in v.fields.items()}
    elif c is AList:
        new = AList.__new__(AList)
        memo[id(v)] = new
        list.__init__(new, [_copy(x, memo) for x in v])
        new.tag = v.tag
    elif c is Pos:
        new = Pos.__new__(Pos)
        memo[id(v)] = new
        new.x, new.y = _copy(v.x, memo), _copy(v.y, memo)
    elif c is CellV:
        new = CellV.__new__(CellV)
        memo[id(v)] = new
        for slot in _CELL_SLOTS:
            setattr(new, slot, getattr(v, slot))
        new.snap = {k: _copy(x, memo) for k, x in v.snap.items()}
    elif c is RElem:
        new = RElem.__new__(RElem)
        memo[id(v)] = new
        new.position, new.color = _copy(v.position, memo), _copy(v.color, memo)
    elif c is Lambda:
        new = Lambda.__new__(Lambda)
        memo[id(v)] = new
        new.params, new.body, new.node = v.params, v.body, v.node
    elif c is BoundRender:
        new = BoundRender.__new__(BoundRender)
        memo[id(v)] = new
        new.obj = _copy(v.obj, memo)
    elif c is CellThunk:
        new = CellThunk.__new__(CellThunk)
        memo[id(v)] = new
        new.cell, new.which = _copy(v.cell, memo), v.which
    else:
        return v       # type references: fixed at load
    new.ident = v.ident
    return new


_CELL_SLOTS = tuple(s for s in CellV.__slots__ if s not in ("snap", "ident"))


def state_key(it: "Interpreter") -> tuple:
    """A hashable fingerprint of the program state (globals by value, and the generator)."""
    rt = it._loaded()
    items = []
    for name, value in rt.G.vars.items():
        if value.__class__ is Builtin or name in _DERIVED:
            continue
        items.append((name, _fingerprint(value)))
    items.sort()
    return (rt.rng_state, tuple(items))


_DERIVED = frozenset(("cacheRendered", "click"))


def _fingerprint(v):
    c = v.__class__
    if c is int or c is bool or c is str:
        return v
    if c is Pos:
        return ("P", _fingerprint(v.x), _fingerprint(v.y))
    if c is Obj:
        return ("O", v.cls.name, tuple((k, _fingerprint(x)) for k, x in v.fields.items()))
    if c is AList:
        return ("L", v.tag, tuple(_fingerprint(x) for x in v))
    if c is CellV:
        # frozen parts by value, deferred parts by their (shared) syntax node
        return ("C", v.fx if v.fx is not None else id(v.nx),
                v.fy if v.fy is not None else id(v.ny),
                v.fc if v.fc is not None else id(v.nc),
                tuple(sorted((k, _fingerprint(x)) for k, x in v.snap.items())))
    if c is RElem:
        return ("E", _fingerprint(v.position), _fingerprint(v.color))
    if c is Lambda:
        return ("F", id(v.node))
    return (c.__name__, id(v))
