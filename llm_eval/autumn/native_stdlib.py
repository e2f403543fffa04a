"""Native versions of the hottest stdlib functions, equivalent to their Autumn definitions.

docs/spec/autumn.md 13 allows native stdlib functions if they reproduce (a) the results, (b) how often
each argument is rendered and (c) which names they assign. Each function below does exactly
what its definition in ``stdlib.sexp`` does, step for step: it builds the same call and let
scopes (so parameter names still shadow program globals for cells rendered inside it), renders
the same objects in the same order, and assigns its intermediate names with the same
``let``-assignment walk (so a program global called ``delta`` or ``prev_elems`` is overwritten
as the reference overwrites it). ``tests/autumn/test_native_stdlib.py`` checks frame-for-frame
equality with the Autumn definitions on every benchmark and conformance program.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import AutumnRuntimeError
from .runtime import MAX_GRID_SIZE
from .values import (
    AList,
    Builtin,
    MovableCells,
    Obj,
    Pos,
    Scope,
    field_value,
    list_tag,
    type_str,
    wrap32,
)

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["install_native_stdlib", "NATIVE_STDLIB"]

# What each native function looks up by name when its Autumn definition runs (callees and
# globals). A native is used only if the program never rebinds any of these names (nor the
# names its native callees depend on); otherwise the Autumn definition stays.
_DEPENDS = {
    "move": {"updateObj"},
    "moveRight": {"move"}, "moveLeft": {"move"}, "moveUp": {"move"}, "moveDown": {"move"},
    "movePos": set(), "moveRightPos": {"movePos"}, "moveLeftPos": {"movePos"},
    "moveUpPos": {"movePos"}, "moveDownPos": {"movePos"},
    "abs": set(), "sign": set(), "max": set(), "min": set(),
    "deltaPos": set(), "displacement": {"deltaPos"}, "sqdist": {"deltaPos"},
    "renderValue": {"isList", "concat", "map", "renderValue"},
    "isFree": {"any", "isFreePos", "renderValue"},
    "in": {"any"},
    "isFreeExcept": {"renderValue", "filter", "in", "any", "isFreePos"},
    "closestPos": {"length", "foldl", "head", "sqdist"},
    "unitVector": {"deltaPos", "sign"}, "unitVectorObjPos": {"deltaPos", "sign"},
    "moveNoCollision": {"isFreeExcept", "move"},
    "moveLeftNoCollision": {"isWithinBounds", "isFreeExcept", "moveLeft"},
    "moveRightNoCollision": {"isWithinBounds", "isFreeExcept", "moveRight"},
    "moveUpNoCollision": {"isWithinBounds", "isFreeExcept", "moveUp"},
    "moveDownNoCollision": {"isWithinBounds", "isFreeExcept", "moveDown"},
    "nextSolid": {"isWithinBounds", "isFreeExcept", "moveDown"},
    "nextLiquid": {"isFree", "moveDown", "map", "range", "filter", "isFreePos", "moveUpPos",
                   "length", "nextLiquidClosestHole", "GRID_SIZE"},
    "nextLiquidClosestHole": {"closestPos", "nextLiquidMoveClosestHole"},
    "nextLiquidMoveClosestHole": {"unitVectorObjPos", "moveUpPos", "move", "isFreePos",
                                  "isWithinBounds"},
}
NATIVE_STDLIB = tuple(_DEPENDS)


def usable_natives(rebound: set[str]) -> set[str]:
    """The natives whose every (transitive) dependency keeps its stdlib meaning."""
    usable = set()
    for name in _DEPENDS:
        seen, todo = set(), [name]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(_DEPENDS.get(n, ()))
        if not (seen & rebound):
            usable.add(name)
    return usable
_INT_MIN, _INT_MAX = -2147483648, 2147483647
# the let names of nextLiquid and the helpers it calls (nextLiquidClosestHole, closestPos,
# nextLiquidMoveClosestHole, unitVectorObjPos)
_LIQUID_LETS = ("nextRowPos", "holes", "closestHole", "delta", "dir", "movedObj", "sign_x",
                "sign_y")


def _movable(obj, dx, dy) -> MovableCells | None:
    """``obj``'s cells when a copy of it moved by (dx, dy) would render them moved
    (``Obj.with_field``): an object with kept MovableCells whose origin is a Position of
    Numbers, moved by Numbers inside 32 bits; else None (the copy must be made and rendered)."""
    if obj.__class__ is not Obj:
        return None
    cells = obj.rendered
    if cells.__class__ is not MovableCells:
        return None
    origin = obj.fields["origin"]
    if origin.__class__ is not Pos or dx.__class__ is not int or dy.__class__ is not int:
        return None
    x, y = origin.x, origin.y
    if x.__class__ is not int or y.__class__ is not int or \
            not (_INT_MIN < x + dx < _INT_MAX and _INT_MIN < y + dy < _INT_MAX):
        return None
    return cells


def _moved_within(cells, dx: int, dy: int, n: int) -> bool:
    """isWithinBounds of the copy whose cells are ``cells`` moved by (dx, dy)."""
    for x, y, _ in cells:
        if not (0 <= x + dx < n and 0 <= y + dy < n):
            return False
    return True
# `in` over a list of at least _INDEX_MIN plain Positions searched twice in a row builds a set
# of its coordinates
_INDEX_MIN = 12


def _add(a, b) -> int:
    if a.__class__ is not int or b.__class__ is not int:
        raise AutumnRuntimeError("'+' needs two Numbers")
    r = a + b
    return r if _INT_MIN <= r <= _INT_MAX else wrap32(r)


def _sub(a, b) -> int:
    if a.__class__ is not int or b.__class__ is not int:
        raise AutumnRuntimeError("'-' needs two Numbers")
    r = a - b
    return r if _INT_MIN <= r <= _INT_MAX else wrap32(r)


def _num(v, what: str) -> int:
    if v.__class__ is not int:
        raise AutumnRuntimeError(f"'{what}' needs a Number")
    return v


def get_field(o, field: str):
    """``(.. o field)``; objects and positions, the commonest cases, are read directly."""
    if o.__class__ is Obj:
        fields = o.fields
        if field in fields:
            return fields[field]
    elif o.__class__ is Pos:
        if field == "x":
            return o.x
        if field == "y":
            return o.y
    return field_value(o, field)


def _position(x, y) -> Pos:
    if x.__class__ is not int or y.__class__ is not int:
        raise AutumnRuntimeError("(Position x y) needs two Numbers")
    return Pos(x, y)


def _sqdist(px: int, py: int, qx: int, qy: int) -> int:
    """sqdist of two Positions with the reference's 32-bit arithmetic."""
    dx, dy = qx - px, qy - py
    if -30000 < dx < 30000 and -30000 < dy < 30000:
        return dx * dx + dy * dy            # cannot leave 32 bits
    if not (_INT_MIN <= dx <= _INT_MAX and _INT_MIN <= dy <= _INT_MAX):
        dx, dy = wrap32(dx), wrap32(dy)
    r = wrap32(dx * dx) + wrap32(dy * dy)
    return r if _INT_MIN <= r <= _INT_MAX else wrap32(r)


def _closest_pos_unobserved(obj, poss):
    """closestPos when no one can see its ``delta`` (not a global, never mentioned): the
    same fold without the call scopes; None if a value is not a plain Position (then the
    step-by-step version runs and raises what the reference raises)."""
    if obj.__class__ is not Obj:
        return None
    here = obj.fields.get("origin")
    if here.__class__ is not Pos:
        return None
    hx, hy = here.x, here.y
    best = poss[0]
    if best.__class__ is not Pos:
        return None
    best_d = _sqdist(hx, hy, best.x, best.y)
    for nxt in poss:
        if nxt.__class__ is not Pos:
            return None
        d = _sqdist(hx, hy, nxt.x, nxt.y)
        if not best_d < d:
            best, best_d = nxt, d
    return best


def install_native_stdlib(rt: "Runtime", rebound: set[str], mentioned: set[str],
                          renders_read_scopes: bool = True) -> None:
    """Replace the stdlib definitions that are safe to replace (see ``usable_natives``).

    ``mentioned`` holds every name the program mentions or binds. A helper's intermediate
    name that the program never mentions can only matter if it is a global (which the
    assignment then overwrites, as in the reference); otherwise the reference creates a
    let-local nobody can see, so it is skipped."""
    G = rt.G
    eq = rt.eq
    full_assign = rt.assign
    gvars = G.vars

    if renders_read_scopes:
        def bind(names: dict, parent):
            """The call or let scope the Autumn definition would build."""
            return Scope(names, parent)
    else:
        def bind(names: dict, parent):
            # No render of this program looks past an object's own fields and cell
            # snapshots, and natives call no program code: their scopes are unobservable,
            # except to the assignments below, which get a scope of their own.
            return parent

    def assign(let, name, value):
        if name in mentioned:
            full_assign(let if renders_read_scopes else Scope({}, let), name, value)
        elif name in gvars:
            full_assign(G, name, value)
    occupied_ref = rt  # rt.occupied is replaced at every host render: read it at call time

    def unobserved(*names) -> bool:
        """No program could see these let-names of a helper: not mentioned, not globals."""
        for name in names:
            if name in mentioned or name in gvars:
                return False
        return True

    def need(name, args, n):
        if len(args) < n:
            raise AutumnRuntimeError(f"a function of {n} parameter(s) was called with "
                                     f"{len(args)} argument(s) ({name})")

    def move_by(obj, dx, dy):
        if obj.__class__ is Obj:
            fields = obj.fields
            origin = fields.get("origin")
            if origin.__class__ is Pos:
                x, y = origin.x, origin.y
                if (x.__class__ is int and y.__class__ is int and dx.__class__ is int
                        and dy.__class__ is int):
                    x, y = x + dx, y + dy
                    if not (_INT_MIN <= x <= _INT_MAX and _INT_MIN <= y <= _INT_MAX):
                        x, y = wrap32(x), wrap32(y)
                    return obj.with_field("origin", Pos(x, y))
        origin = get_field(obj, "origin")
        pos = _position(_add(get_field(origin, "x"), dx), _add(get_field(origin, "y"), dy))
        if obj.__class__ is not Obj:
            raise AutumnRuntimeError("updateObj expects a list or an object")
        return obj.with_field("origin", pos)

    def n_move(env, args):
        need("move", args, 2)
        d = args[1]
        return move_by(args[0], get_field(d, "x"), get_field(d, "y"))

    def mover(dx, dy):
        def n_move_dir(env, args):
            need("move", args, 1)
            return move_by(args[0], dx, dy)
        return n_move_dir

    def n_move_pos(env, args):
        need("movePos", args, 2)
        p, d = args[0], args[1]
        return _position(_add(get_field(p, "x"), get_field(d, "x")),
                         _add(get_field(p, "y"), get_field(d, "y")))

    def pos_mover(dx, dy):
        def n_move_pos_dir(env, args):
            need("movePos", args, 1)
            p = args[0]
            return _position(_add(get_field(p, "x"), dx), _add(get_field(p, "y"), dy))
        return n_move_pos_dir

    def n_abs(env, args):
        need("abs", args, 1)
        x = _num(args[0], "<")
        return wrap32(-x) if x < 0 else x

    def n_sign(env, args):
        need("sign", args, 1)
        x = _num(args[0], "<")
        return -1 if x < 0 else (1 if x > 0 else 0)

    def delta_pos(p1, p2) -> Pos:
        if p1.__class__ is Pos and p2.__class__ is Pos:
            return Pos(_sub(p2.x, p1.x), _sub(p2.y, p1.y))
        return _position(_sub(get_field(p2, "x"), get_field(p1, "x")),
                         _sub(get_field(p2, "y"), get_field(p1, "y")))

    def n_delta_pos(env, args):
        need("deltaPos", args, 2)
        return delta_pos(args[0], args[1])

    def n_max(env, args):
        need("max", args, 2)
        a, b = args[0], args[1]
        _num(a, "<"), _num(b, "<")
        return b if a < b else a

    def n_min(env, args):
        need("min", args, 2)
        a, b = args[0], args[1]
        _num(a, "<"), _num(b, "<")
        return a if a < b else b

    def n_sqdist(env, args):
        need("sqdist", args, 2)
        p1, p2 = args[0], args[1]
        let = bind({}, bind({"pos1": p1, "pos2": p2}, env))
        d = delta_pos(p1, p2)
        assign(let, "delta", d)
        dx, dy = d.x, d.y
        r = wrap32(dx * dx) + wrap32(dy * dy)
        return r if _INT_MIN <= r <= _INT_MAX else wrap32(r)

    def render_value(v, env) -> AList:
        """``(renderValue v)`` called from ``env``, with its call scopes (recursively)."""
        scope = bind({"obj": v}, env)
        if v.__class__ is AList:
            out: list = []
            for item in v:
                out.extend(render_value(item, bind({"one": item}, scope)))
            rt.check_list(len(out))
            return AList(out)
        if v.__class__ is not Obj:
            raise AutumnRuntimeError(f"renderValue: a {type_str(v)} has no field 'render'")
        return rt.rendered_list(v, scope)

    def render_cells(v, env) -> list:
        """``(renderValue v)`` as (x, y, colour) tuples, for callers that only test them:
        the same call scopes and renders, without building RenderedElems."""
        scope = bind({"obj": v}, env)
        if v.__class__ is AList:
            out: list = []
            for item in v:
                out.extend(render_cells(item, bind({"one": item}, scope)))
            rt.check_list(len(out))
            return out
        if v.__class__ is not Obj:
            raise AutumnRuntimeError(f"renderValue: a {type_str(v)} has no field 'render'")
        out = []
        rt.render_value(v, scope, out)
        return out

    def n_render_value(env, args):
        need("renderValue", args, 1)
        return render_value(args[0], env)

    def n_is_free(env, args):
        need("isFree", args, 1)
        v = args[0]
        occupied = occupied_ref.occupied
        for x, y, _ in render_cells(v, bind({"obj": v}, env)):
            if (x, y) in occupied:
                return False
        return True

    # The list `in` searched last and, once it is searched again (a list of targets tested
    # for every object of a tick), the set of its (x, y) pairs (False: not all plain
    # Positions). Lists are never changed in place, and positions only by a field assignment,
    # after which (render_cache off) no set is used.
    last: list = [None, None]

    def position_pairs(xs):
        pairs = set()
        for p in xs:
            if p.__class__ is not Pos or p.x.__class__ is not int or p.y.__class__ is not int:
                return False
            pairs.add((p.x, p.y))
        return pairs

    def n_in(env, args):
        need("in", args, 2)
        e, xs = args[0], args[1]
        if xs.__class__ is not AList:
            raise AutumnRuntimeError("any expects a list")
        rt.count_work(len(xs))
        if e.__class__ is Pos and e.x.__class__ is int and e.y.__class__ is int:
            # a plain Position sought (the common case): positions of plain numbers are
            # compared here, anything else by eq, which is what eq would decide for each
            ex, ey = e.x, e.y
            if len(xs) >= _INDEX_MIN and rt.render_cache:
                if last[0] is xs:
                    pairs = last[1]
                    if pairs is None:
                        pairs = last[1] = position_pairs(xs)
                    if pairs is not False:
                        return (ex, ey) in pairs
                else:
                    last[0], last[1] = xs, None
            for x in xs:
                if x.__class__ is Pos:
                    xx, xy = x.x, x.y
                    if xx.__class__ is int and xy.__class__ is int:
                        if xx == ex and xy == ey:
                            return True
                        continue
                if eq(x, e):
                    return True
            return False
        for x in xs:
            if eq(x, e):
                return True
        return False

    def n_is_free_except(env, args):
        need("isFreeExcept", args, 2)
        obj, prev_obj = args[0], args[1]
        let = bind({}, bind({"obj": obj, "prev_obj": prev_obj}, env))
        if unobserved("prev_elems", "curr_elems", "filtered_elems"):
            before = set(render_cells(prev_obj, let))
            occupied = occupied_ref.occupied
            for x, y, col in render_cells(obj, let):
                if (x, y, col) not in before and (x, y) in occupied:
                    return False
            return True
        prev_elems = render_value(prev_obj, let)
        assign(let, "prev_elems", prev_elems)
        curr_elems = render_value(obj, let)
        assign(let, "curr_elems", curr_elems)
        rt.count_work(len(curr_elems) * len(prev_elems))
        kept = [c for c in curr_elems if not any(eq(p, c) for p in prev_elems)]
        filtered = AList(kept, list_tag(type_str(kept[-1]))) if kept else AList()
        assign(let, "filtered_elems", filtered)
        occupied = occupied_ref.occupied
        for c in kept:
            p = c.position
            if (p.x, p.y) in occupied:
                return False
        return True

    def grid_size() -> int:
        n = G.vars.get("GRID_SIZE")
        if n.__class__ is not int:
            raise AutumnRuntimeError("GRID_SIZE must be a Number")
        if not 0 < n <= MAX_GRID_SIZE:
            rt.check_grid_size(n)
        return n

    within_bounds_builtin = G.vars["isWithinBounds"].fn

    def within_bounds(v, env) -> bool:
        return within_bounds_builtin(env, [v])

    def is_free_except(obj, prev_obj, env) -> bool:
        return n_is_free_except(env, [obj, prev_obj])

    def moved_fits(obj, dx, dy, bounds: bool):
        """Whether ``obj`` moved by (dx, dy) is within bounds (if ``bounds``) and free but for
        ``obj``'s own cells (isFreeExcept), found on the cells the moved copy would render
        (``_movable``: nothing is evaluated, no scope can be seen, no copy is made); None when
        the copy must be made and rendered."""
        cells = _movable(obj, dx, dy)
        if cells is None or not unobserved("prev_elems", "curr_elems", "filtered_elems"):
            return None
        if bounds and not _moved_within(cells, dx, dy, grid_size()):
            return False
        occupied = occupied_ref.occupied
        own = set(cells)
        for x, y, col in cells:
            x += dx
            y += dy
            if (x, y) in occupied and (x, y, col) not in own:
                return False
        return True

    def no_collision(dx, dy):
        # (if (& (isWithinBounds (moveX obj)) (isFreeExcept (moveX obj) obj)) ...)
        def n_no_collision(env, args):
            need("moveNoCollision", args, 1)
            obj = args[0]
            fits = moved_fits(obj, dx, dy, True)
            if fits is not None:
                return move_by(obj, dx, dy) if fits else obj
            scope = bind({"obj": obj}, env)
            # the definition builds (moveX obj) up to three times; one copy serves all
            # (copies share their cells, so every render happens exactly as often)
            moved = move_by(obj, dx, dy)
            if within_bounds(moved, scope) and is_free_except(moved, obj, scope):
                return moved
            return obj
        return n_no_collision

    def n_move_right_no_collision(env, args):
        need("moveRightNoCollision", args, 1)
        obj = args[0]
        let = bind({}, bind({"obj": obj}, env))
        moved = move_by(obj, 1, 0)
        wbound = within_bounds(moved, let)
        assign(let, "wbound", wbound)
        fr = is_free_except(moved, obj, let)
        assign(let, "fr", fr)
        ret = moved if (wbound and fr) else obj
        assign(let, "ret", ret)
        return ret

    def n_move_no_collision(env, args):
        need("moveNoCollision", args, 3)
        obj, x, y = args[0], args[1], args[2]
        fits = moved_fits(obj, x, y, False)
        if fits is not None:
            return move_by(obj, x, y) if fits else obj
        scope = bind({"obj": obj, "x": x, "y": y}, env)
        moved = move_by(obj, x, y)
        if is_free_except(moved, obj, scope):
            return moved
        return obj

    def closest_pos(obj, poss, env):
        if poss.__class__ is not AList:
            raise AutumnRuntimeError("length expects a list")
        if not poss:
            return get_field(obj, "origin")
        rt.count_work(len(poss))
        if "delta" not in mentioned and "delta" not in gvars:
            best = _closest_pos_unobserved(obj, poss)
            if best is not None:
                return best
        scope = bind({"obj": obj, "listPoss": poss}, env)
        best = poss[0]
        for nxt in poss:
            inner = bind({"best": best, "next": nxt}, scope)
            here = get_field(obj, "origin")
            a = n_sqdist(inner, [here, best])
            b = n_sqdist(inner, [here, nxt])
            if not a < b:
                best = nxt
        return best

    def n_closest_pos(env, args):
        need("closestPos", args, 2)
        return closest_pos(args[0], args[1], env)

    def unit_vector(obj, target_pos, let):
        d = delta_pos(get_field(obj, "origin"), target_pos)
        assign(let, "delta", d)
        sx = -1 if d.x < 0 else (1 if d.x > 0 else 0)
        assign(let, "sign_x", sx)
        sy = -1 if d.y < 0 else (1 if d.y > 0 else 0)
        assign(let, "sign_y", sy)
        return Pos(sx, 0) if (sx != 0 and sy != 0) else Pos(sx, sy)

    def n_unit_vector(env, args):
        need("unitVector", args, 2)
        obj, target = args[0], args[1]
        let = bind({}, bind({"obj": obj, "target": target}, env))
        return unit_vector(obj, get_field(target, "origin"), let)

    def n_unit_vector_obj_pos(env, args):
        need("unitVectorObjPos", args, 2)
        obj, pos = args[0], args[1]
        let = bind({}, bind({"obj": obj, "pos": pos}, env))
        return unit_vector(obj, pos, let)

    def step_toward(obj, ux: int, uy: int, sx: int, sy: int):
        """The end of nextLiquidMoveClosestHole (its unobserved path), the step (sx, sy)
        toward the free cell (ux, uy) above the hole, tested on the cells the moved copy would
        render (the copy made only if it is returned); None when the copy must be made and
        rendered (``_movable``)."""
        cells = _movable(obj, sx, sy)
        if cells is None:
            return None
        origin = obj.fields["origin"]
        occupied = occupied_ref.occupied
        if (ux, uy) in occupied or (origin.x + sx, origin.y + sy) in occupied:
            return obj
        if not _moved_within(cells, sx, sy, grid_size()):
            return obj
        return move_by(obj, sx, sy)

    def move_closest_hole(obj, hole, env):
        let = bind({}, bind({"obj": obj, "closestHole": hole}, env))
        up = _position(_add(get_field(hole, "x"), 0), _add(get_field(hole, "y"), -1))
        origin = obj.fields.get("origin") if obj.__class__ is Obj else None
        if origin.__class__ is Pos and unobserved("dir", "movedObj", "delta", "sign_x",
                                                   "sign_y"):
            # unitVectorObjPos and move without their scopes: nothing can see them
            dx, dy = _sub(up.x, origin.x), _sub(up.y, origin.y)
            sx = -1 if dx < 0 else (1 if dx > 0 else 0)
            sy = -1 if dy < 0 else (1 if dy > 0 else 0)
            if sx != 0:
                sy = 0
            done = step_toward(obj, up.x, up.y, sx, sy)
            if done is not None:
                return done
            moved = move_by(obj, sx, sy)
        else:
            d = n_unit_vector_obj_pos(let, [obj, up])
            assign(let, "dir", d)
            moved = n_move(let, [obj, d])
        assign(let, "movedObj", moved)
        up2 = _position(_add(get_field(hole, "x"), 0), _add(get_field(hole, "y"), -1))
        occupied = occupied_ref.occupied
        if (up2.x, up2.y) not in occupied:
            origin = get_field(moved, "origin")
            if origin.__class__ is not Pos:
                raise AutumnRuntimeError("isFreePos expects a Position")
            if (origin.x, origin.y) not in occupied and within_bounds(moved, let):
                return moved
        return obj

    def n_next_liquid_move_closest_hole(env, args):
        need("nextLiquidMoveClosestHole", args, 2)
        return move_closest_hole(args[0], args[1], env)

    def closest_hole(obj, holes, env):
        let = bind({}, bind({"obj": obj, "holes": holes}, env))
        h = closest_pos(obj, holes, let)
        assign(let, "closestHole", h)
        return move_closest_hole(obj, h, let)

    def n_next_liquid_closest_hole(env, args):
        need("nextLiquidClosestHole", args, 2)
        return closest_hole(args[0], args[1], env)

    # the occupancy set the columns below were found in (a new set at every host render and
    # restore; never changed in place), and the columns of the holes by (row, grid size)
    hole_columns: list = [None, {}]

    def holes_below(below: int, n: int) -> list[int]:
        """The columns of nextLiquid's holes in row ``below``: cells free with a free cell
        above."""
        occupied = occupied_ref.occupied
        if hole_columns[0] is not occupied:
            hole_columns[:] = [occupied, {}]
        cols = hole_columns[1].get((below, n))
        if cols is None:
            above = _add(below, -1)
            cols = hole_columns[1][(below, n)] = [
                col for col in range(0, n)
                if (col, below) not in occupied and (col, above) not in occupied]
        return cols

    def liquid_step(obj, origin, below: int, n: int):
        """nextLiquid of a drop that cannot fall, whose cells are MovableCells and whose row
        is not the last (``below`` is not ``n``), when no let name of it or its helpers can be
        seen."""
        cols = holes_below(below, n)
        if not cols:
            return obj
        rt.count_work(len(cols))                  # closestPos's fold over the holes
        ox, oy = origin.x, origin.y
        best = cols[0]
        best_d = _sqdist(ox, oy, best, below)
        for col in cols:
            d = _sqdist(ox, oy, col, below)
            if not best_d < d:
                best, best_d = col, d
        dx = _sub(best, ox)        # the cell above the hole is on the drop's own row: dy 0
        sx = -1 if dx < 0 else (1 if dx > 0 else 0)
        return step_toward(obj, best, below - 1, sx, 0)

    def n_next_liquid(env, args):
        need("nextLiquid", args, 1)
        obj = args[0]
        scope = bind({"obj": obj}, env)
        origin = obj.fields.get("origin") if obj.__class__ is Obj else None
        y = origin.y if origin.__class__ is Pos else get_field(get_field(obj, "origin"), "y")
        n = grid_size()
        if y.__class__ is not int:
            raise AutumnRuntimeError("'!=' needs Numbers")
        last = n - 1
        if last < _INT_MIN:
            last = wrap32(last)
        if y != last:
            cells = _movable(obj, 0, 1)
            if cells is None:
                below = move_by(obj, 0, 1)
                if n_is_free(scope, [below]):
                    return below
            else:
                # (isFree (moveDown obj)) on the cells the moved copy would render (nothing
                # evaluated, nothing to see): the copy is made only if it is returned
                occupied = occupied_ref.occupied
                for x, cy, _ in cells:
                    if (x, cy + 1) in occupied:
                        break
                else:
                    return move_by(obj, 0, 1)
                if unobserved(*_LIQUID_LETS):
                    # nothing can see the row, the holes, the closest one or the step toward
                    # it: all of it on Numbers (the same holes, closest one and work)
                    return liquid_step(obj, origin, y + 1, n)
        let = bind({}, scope)
        y = get_field(get_field(obj, "origin"), "y")
        below = _add(y, 1)
        occupied = occupied_ref.occupied
        if below == grid_size():
            kept = []
            assign(let, "nextRowPos", AList())
        elif "nextRowPos" not in mentioned and "nextRowPos" not in gvars:
            # no one can see the row: make Positions only for the holes, whose columns are
            # the same for every drop of a row while the occupancy is (a tick's)
            kept = [Pos(col, below) for col in holes_below(below, grid_size())]
        else:   # the row's y is the same pure expression for every column
            row = AList([Pos(col, below) for col in range(0, grid_size())])
            assign(let, "nextRowPos", row)
            kept = [p for p in row if (p.x, p.y) not in occupied
                    and (p.x, _add(p.y, -1)) not in occupied]
        holes = AList(kept, list_tag(type_str(kept[-1]))) if kept else AList()
        assign(let, "holes", holes)
        if not holes:
            return obj
        return closest_hole(obj, holes, let)

    natives = {
        "moveNoCollision": n_move_no_collision,
        "moveLeftNoCollision": no_collision(-1, 0),
        "moveRightNoCollision": n_move_right_no_collision,
        "moveUpNoCollision": no_collision(0, -1),
        "moveDownNoCollision": no_collision(0, 1),
        "nextSolid": no_collision(0, 1),
        "closestPos": n_closest_pos, "unitVector": n_unit_vector,
        "unitVectorObjPos": n_unit_vector_obj_pos,
        "nextLiquid": n_next_liquid, "nextLiquidClosestHole": n_next_liquid_closest_hole,
        "nextLiquidMoveClosestHole": n_next_liquid_move_closest_hole,
        "move": n_move, "moveRight": mover(1, 0), "moveLeft": mover(-1, 0),
        "moveUp": mover(0, -1), "moveDown": mover(0, 1), "movePos": n_move_pos,
        "moveRightPos": pos_mover(1, 0), "moveLeftPos": pos_mover(-1, 0),
        "moveUpPos": pos_mover(0, -1), "moveDownPos": pos_mover(0, 1), "abs": n_abs,
        "sign": n_sign, "deltaPos": n_delta_pos, "max": n_max, "min": n_min,
        "sqdist": n_sqdist, "renderValue": n_render_value, "isFree": n_is_free, "in": n_in,
        "isFreeExcept": n_is_free_except,
    }
    d = G.vars
    usable = usable_natives(rebound)
    for name, fn in natives.items():
        if name in usable:
            d[name] = Builtin(name, fn)
    if "displacement" in usable:
        d["displacement"] = d["deltaPos"]
