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
- **Restoring shares the saved values** (``share=True``) instead of copying them again: a
  search restores a state once per action it tries, and the copy was most of its time. The
  running state then holds the saved state's values, whose ids (with their field and
  snapshot tables) are ``Runtime.frozen``. Every site that changes a value in place (a field
  assignment, ``rotate``, an identity moved by an assignment onto an existing value, an
  assignment into a cell's snapshot or an object's fields used as a scope) checks that set
  first and raises ``Thaw`` rather than change a shared value. The interpreter then restores
  a private copy, replays the operations since the restore and runs the failed one again
  (``Interpreter._op``), so every result is the one a copying restore gives.
  ``own(interpreter)`` gives the running state copies of its own between operations.
- **Saving while sharing** copies only the values the play made; the new state shares the
  others with the state they came from, keeps it alive (so the ids stay valid) and adds its
  ids to its own (``_MAX_CHAIN`` links at most). The global table's order and definition
  history are shared by saves and restores alike and copied by the first definition that
  would change them (``Runtime.own_tables``).
- ``state_key(interpreter)`` is a hashable fingerprint: equal keys mean equal futures for
  equal inputs (the global values up to identity numbers, and the random generator's state).
  Each global's value enters it as a 64-bit hash of its parts (``_fingerprint``), so a key
  costs as much to hash as there are globals; two different states share a key only by a
  hash collision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .values import AList, BoundRender, Builtin, CellThunk, CellV, Lambda, Obj, Pos, RElem

if TYPE_CHECKING:
    from .interpreter import Interpreter

__all__ = ["SavedState", "save", "restore", "own", "state_key"]


class SavedState:
    """An opaque saved state of one interpreter (see ``save``). ``frozen``: the ids of its
    values and of their field and snapshot tables (they stay valid while it lives);
    ``fingerprints``: ``_fingerprint`` of its values by id, filled as ``state_key`` meets
    them in a running state that shares them."""

    __slots__ = ("owner", "data", "frozen", "fingerprints", "parent", "depth")

    def __init__(self, owner: int, data: tuple, frozen: frozenset[int],
                 parent: "SavedState | None") -> None:
        self.owner = owner
        self.data = data
        self.frozen = frozen
        self.fingerprints: dict[int, object] = {}
        self.parent = parent    # whose values it shares: kept alive, so their ids stay valid
        self.depth = 0 if parent is None else parent.depth + 1


def save(it: "Interpreter", shared: SavedState | None = None) -> SavedState:
    """``shared``: the saved state whose values the running state shares (``restore`` with
    ``share``); the new state shares them too instead of copying them."""
    rt = it._loaded()
    memo: dict[int, object] = {}
    if shared is None or rt.frozen is not shared.frozen or shared.depth >= _MAX_CHAIN:
        data = _capture(it, memo, _NOTHING)
        return SavedState(id(rt), data, _ids(memo.values()), None)
    data = _capture(it, memo, shared.frozen)
    return SavedState(id(rt), data, _ids(memo.values()) | shared.frozen, shared)


_NOTHING: frozenset[int] = frozenset()
# A state saved while sharing keeps the one it shares with alive, and its id set holds that
# one's ids: a rollout saving every step would chain states (and grow id sets) without end,
# so the save after this many links copies everything and starts a new chain.
_MAX_CHAIN = 8


def _ids(values) -> frozenset[int]:
    """The ids of copied values and of the tables they own (what a shared value's in-place
    change would touch)."""
    out = []
    for v in values:
        out.append(id(v))
        c = v.__class__
        if c is Obj:
            out.append(id(v.fields))
        elif c is CellV:
            out.append(id(v.snap))
    return frozenset(out)


def _capture(it: "Interpreter", memo: dict, keep: frozenset[int]) -> tuple:
    rt = it._rt
    gvars = {k: _copy(v, memo, keep) for k, v in rt.G.vars.items()}
    snapshot = (None if rt.snapshot is None
                else {k: _copy(v, memo, keep) for k, v in rt.snapshot.items()})
    rt.tables_shared = True      # copied by the first definition that changes them
    return (gvars, snapshot, rt.global_order, rt.history, rt.first_defined,
            dict(rt.annotations), (rt.rendered_cells, rt.occupied), rt.rng_state, rt.click,
            dict(rt.arrows),
            [h.covered for h in rt.handlers], it.steps, it._broken, set(rt.updated))


def restore(it: "Interpreter", saved: SavedState, *, share: bool = False) -> None:
    """Put ``saved`` back. ``share``: the running state holds the saved values themselves
    (``Runtime.frozen`` is set; see the module's docstring), else copies of them."""
    rt = it._loaded()
    if saved.owner != id(rt):
        raise ValueError("this state was saved from another interpreter")
    (gvars, snapshot, order, history, first, annotations, occupied, rng, click, arrows,
     covered, steps, broken, updated) = saved.data
    rt.G.vars.clear()               # the same dict object: compiled code holds it
    if share:
        rt.G.vars.update(gvars)
        rt.snapshot = None if snapshot is None else dict(snapshot)
        rt.frozen = saved.frozen
    else:
        memo: dict[int, object] = {}    # copy again: the saved state must stay as it was
        rt.G.vars.update({k: _copy(v, memo) for k, v in gvars.items()})
        rt.snapshot = (None if snapshot is None
                       else {k: _copy(v, memo) for k, v in snapshot.items()})
        rt.frozen = None
    if first is not rt.first_defined:
        rt._render_order = None     # other names defined (a table is shared, never changed)
    rt.global_order, rt.history, rt.first_defined = order, history, first
    rt.tables_shared = True
    rt.annotations = dict(annotations)
    # the render's cells and occupancy set are never changed in place: shared, not copied
    rt.rendered_cells, rt.occupied = occupied
    if rt.occupancy_read:   # a state saved before an evaluation read it has no set
        rt.read_occupancy()
    rt.rng_state = rng
    rt.click = click
    rt.arrows.clear()
    rt.arrows.update(arrows)
    for h, c in zip(rt.handlers, covered):
        h.covered = c
    rt.updated = set(updated)
    it.steps = steps
    it._broken = broken


def own(it: "Interpreter") -> None:
    """Give the running state copies of the values it shares with a saved state (between
    operations: nothing else holds them then). Sharing between its values is kept."""
    rt = it._loaded()
    memo: dict[int, object] = {}
    d = rt.G.vars
    for k, v in d.items():
        d[k] = _copy(v, memo)       # an existing key: the table's order is kept
    if rt.snapshot is not None:
        rt.snapshot = {k: _copy(v, memo) for k, v in rt.snapshot.items()}
    rt.frozen = None


def _copy(v, memo: dict, keep: frozenset[int] = _NOTHING):
    """A copy of a run-time value that shares nothing mutable with it (sharing between the
    values copied with one ``memo`` is kept: ``prev``'s snapshot holds the same objects),
    except the values whose ids are in ``keep`` (a saved state's, which never change)."""
    c = v.__class__
    if c is int or c is bool or c is str or c is Builtin or v is None:
        return v       # builtins are recognised by identity, and never change
    got = memo.get(id(v))
    if got is not None:
        return got
    if id(v) in keep:
        return v
    if c is Obj:
        new = Obj.__new__(Obj)
        memo[id(v)] = new
        new.cls = v.cls
        new.rendered = v.rendered          # a tuple of tuples: shared safely
        new.fields = {k: _copy(x, memo, keep) for k, x in v.fields.items()}
    elif c is AList:
        new = AList.__new__(AList)
        memo[id(v)] = new
        list.__init__(new, [_copy(x, memo, keep) for x in v])
        new.tag = v.tag
    elif c is Pos:
        new = Pos.__new__(Pos)
        memo[id(v)] = new
        new.x, new.y = _copy(v.x, memo, keep), _copy(v.y, memo, keep)
    elif c is CellV:
        new = CellV.__new__(CellV)
        memo[id(v)] = new
        for slot in _CELL_SLOTS:
            setattr(new, slot, getattr(v, slot))
        new.snap = {k: _copy(x, memo, keep) for k, x in v.snap.items()}
    elif c is RElem:
        new = RElem.__new__(RElem)
        memo[id(v)] = new
        new.position, new.color = _copy(v.position, memo, keep), _copy(v.color, memo, keep)
    elif c is Lambda:
        new = Lambda.__new__(Lambda)
        memo[id(v)] = new
        new.params, new.body, new.node = v.params, v.body, v.node
    elif c is BoundRender:
        new = BoundRender.__new__(BoundRender)
        memo[id(v)] = new
        new.obj = _copy(v.obj, memo, keep)
    elif c is CellThunk:
        new = CellThunk.__new__(CellThunk)
        memo[id(v)] = new
        new.cell, new.which = _copy(v.cell, memo, keep), v.which
    else:
        return v       # type references: fixed at load
    new.ident = v.ident
    return new


_CELL_SLOTS = tuple(s for s in CellV.__slots__ if s not in ("snap", "ident"))


def state_key(it: "Interpreter", shared: SavedState | None = None) -> tuple:
    """A hashable fingerprint of the program state: the generator's state, the number of
    globals, then each global's name and value's fingerprint (``_fingerprint``), by name,
    less the names bound for good to a function (``Runtime.fixed``: the same in every state)
    and the host's derived ones (``_DERIVED``). ``shared``: the saved state whose values the
    running state shares (``restore`` with ``share``), whose fingerprints are computed once
    and kept (its values never change)."""
    rt = it._loaded()
    sharing = shared is not None and rt.frozen is shared.frozen
    if sharing:
        frozen, known = shared.frozen, shared.fingerprints
    rt.render_order()            # keeps ``rt.fixed`` current
    fixed = rt.fixed             # the same function in every state: left out (most of them)
    items = []
    append = items.append
    d = rt.G.vars
    for name, value in d.items():   # a search's hot loop: most values are numbers
        c = value.__class__
        if c is int or c is bool or c is str:
            append((name, value))
        elif c is not Builtin and name not in _DERIVED and name not in fixed:
            if sharing:
                # a shared value's fingerprint, once known, without the call (ids in
                # ``known`` are the saved state's, alive while it is)
                fp = known.get(id(value))
                append((name, fp if fp is not None
                        else _fingerprint_shared(value, frozen, known)))
            else:
                append((name, _fingerprint(value)))
    items.sort()
    # the table's size: a function left out that is gone (``removeObj`` of it) still counts
    size = len(d)
    for name in _DERIVED:
        if name in d:
            size -= 1
    return (rt.rng_state, size, tuple(items))


_DERIVED = frozenset(("cacheRendered", "click"))


# A value's fingerprint is the value itself for a number, boolean or string, else the hash of a
# tuple of its kind and its parts' fingerprints: equal values (up to identity numbers) get
# equal fingerprints, and a fingerprint is one small object however large the value, so a key
# is as cheap to hash and compare as the number of globals. Two different values get the same
# fingerprint only by a collision of 64-bit hashes (a chance of about 3 in 10^10 among the
# 100,000 states of a long search), which the searches that use keys accept.
def _fingerprint(v):
    c = v.__class__
    if c is int or c is bool or c is str:
        return v
    if c is Pos:
        return hash(("P", _fingerprint(v.x), _fingerprint(v.y)))
    if c is Obj:
        return hash(("O", v.cls.name, tuple([(k, _fingerprint(x))
                                             for k, x in v.fields.items()])))
    if c is AList:
        return hash(("L", v.tag, tuple([_fingerprint(x) for x in v])))
    if c is CellV:
        # frozen parts by value, deferred parts by their (shared) syntax node
        return hash(("C", v.fx if v.fx is not None else id(v.nx),
                     v.fy if v.fy is not None else id(v.ny),
                     v.fc if v.fc is not None else id(v.nc),
                     tuple(sorted([(k, _fingerprint(x)) for k, x in v.snap.items()]))))
    if c is RElem:
        return hash(("E", _fingerprint(v.position), _fingerprint(v.color)))
    if c is Lambda:
        return hash(("F", id(v.node)))
    return hash((c.__name__, id(v)))


def _fingerprint_shared(v, frozen: frozenset[int], known: dict):
    """``_fingerprint(v)``, taking that of each value in ``frozen`` from ``known`` (or
    computing and keeping it there)."""
    c = v.__class__
    if c is int or c is bool or c is str:
        return v
    i = id(v)
    if i in frozen:
        got = known.get(i)
        if got is None:
            got = known[i] = _fingerprint(v)
        return got
    if c is Obj:
        return hash(("O", v.cls.name, tuple([(k, _fingerprint_shared(x, frozen, known))
                                             for k, x in v.fields.items()])))
    if c is AList:
        return hash(("L", v.tag, tuple([_fingerprint_shared(x, frozen, known) for x in v])))
    if c is Pos:
        return hash(("P", _fingerprint_shared(v.x, frozen, known),
                     _fingerprint_shared(v.y, frozen, known)))
    return _fingerprint(v)
