"""Native versions of the hottest stdlib functions, equivalent to their Autumn definitions.

AUTUMN.md 13 allows native stdlib functions if they reproduce (a) the results, (b) how often
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
from .compiler import wrap32
from .values import AList, Builtin, Obj, Pos, RElem, Scope, list_tag, type_str, UNKNOWN_LIST

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["install_native_stdlib", "NATIVE_STDLIB"]

NATIVE_STDLIB = ("move moveRight moveLeft moveUp moveDown movePos moveRightPos moveLeftPos "
                 "moveUpPos moveDownPos abs sign deltaPos displacement max min sqdist "
                 "renderValue isFree in isFreeExcept").split()
_INT_MIN, _INT_MAX = -2147483648, 2147483647


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
    """``(.. o field)`` on any instance, with the same errors as the compiled form."""
    c = o.__class__
    if c is Obj:
        fields = o.fields
        if field in fields:
            return fields[field]
        raise AutumnRuntimeError(f"object {o.cls.name} has no field '{field}'")
    if c is Pos:
        if field == "x":
            return o.x
        if field == "y":
            return o.y
    elif c is RElem:
        if field == "position":
            return o.position
        if field == "color":
            return o.color
    raise AutumnRuntimeError(f"field access '{field}' on a value without that field")


def _position(x, y) -> Pos:
    if x.__class__ is not int or y.__class__ is not int:
        raise AutumnRuntimeError("(Position x y) needs two Numbers")
    return Pos(x, y)


def install_native_stdlib(rt: "Runtime") -> None:
    G = rt.G
    eq = rt.eq
    assign = rt.assign
    occupied_ref = rt  # rt.occupied is replaced at every host render: read it at call time

    def need(name, args, n):
        if len(args) < n:
            raise AutumnRuntimeError(f"a function of {n} parameter(s) was called with "
                                     f"{len(args)} argument(s) ({name})")

    def move_by(obj, dx, dy):
        origin = get_field(obj, "origin")
        pos = _position(_add(get_field(origin, "x"), dx), _add(get_field(origin, "y"), dy))
        if obj.__class__ is not Obj:
            raise AutumnRuntimeError("updateObj expects a list or an object")
        copy = obj.copy()
        copy.fields["origin"] = pos
        return copy

    def n_move(env, args):
        need("move", args, 2)
        obj, d = args[0], args[1]
        origin = get_field(obj, "origin")
        x = _add(get_field(origin, "x"), get_field(d, "x"))
        y = _add(get_field(origin, "y"), get_field(d, "y"))
        pos = _position(x, y)
        if obj.__class__ is not Obj:
            raise AutumnRuntimeError("updateObj expects a list or an object")
        copy = obj.copy()
        copy.fields["origin"] = pos
        return copy

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
        let = Scope({}, Scope({"pos1": p1, "pos2": p2}, env))
        d = delta_pos(p1, p2)
        assign(let, "delta", d)
        dx, dy = d.x, d.y
        r = wrap32(dx * dx) + wrap32(dy * dy)
        return r if _INT_MIN <= r <= _INT_MAX else wrap32(r)

    def render_value(v, env) -> AList:
        """``(renderValue v)`` called from ``env``, with its call scopes (recursively)."""
        scope = Scope({"obj": v}, env)
        if v.__class__ is AList:
            out: list = []
            for item in v:
                out.extend(render_value(item, Scope({"one": item}, scope)))
            rt.check_list(len(out))
            return AList(out)
        if v.__class__ is not Obj:
            raise AutumnRuntimeError(f"renderValue: a {type_str(v)} has no field 'render'")
        return rt.rendered_list(v, scope)

    def n_render_value(env, args):
        need("renderValue", args, 1)
        return render_value(args[0], env)

    def n_is_free(env, args):
        need("isFree", args, 1)
        v = args[0]
        cells = render_value(v, Scope({"obj": v}, env))
        occupied = occupied_ref.occupied
        for c in cells:
            p = c.position
            if (p.x, p.y) in occupied:
                return False
        return True

    def n_in(env, args):
        need("in", args, 2)
        e, xs = args[0], args[1]
        if xs.__class__ is not AList:
            raise AutumnRuntimeError("any expects a list")
        for x in xs:
            if eq(x, e):
                return True
        return False

    def n_is_free_except(env, args):
        need("isFreeExcept", args, 2)
        obj, prev_obj = args[0], args[1]
        let = Scope({}, Scope({"obj": obj, "prev_obj": prev_obj}, env))
        prev_elems = render_value(prev_obj, let)
        assign(let, "prev_elems", prev_elems)
        curr_elems = render_value(obj, let)
        assign(let, "curr_elems", curr_elems)
        kept = [c for c in curr_elems if not any(eq(p, c) for p in prev_elems)]
        filtered = AList(kept, list_tag(type_str(kept[-1]))) if kept else AList()
        assign(let, "filtered_elems", filtered)
        occupied = occupied_ref.occupied
        for c in kept:
            p = c.position
            if (p.x, p.y) in occupied:
                return False
        return True

    natives = {
        "move": n_move, "moveRight": mover(1, 0), "moveLeft": mover(-1, 0),
        "moveUp": mover(0, -1), "moveDown": mover(0, 1), "movePos": n_move_pos,
        "moveRightPos": pos_mover(1, 0), "moveLeftPos": pos_mover(-1, 0),
        "moveUpPos": pos_mover(0, -1), "moveDownPos": pos_mover(0, 1), "abs": n_abs,
        "sign": n_sign, "deltaPos": n_delta_pos, "max": n_max, "min": n_min,
        "sqdist": n_sqdist, "renderValue": n_render_value, "isFree": n_is_free, "in": n_in,
        "isFreeExcept": n_is_free_except,
    }
    d = G.vars
    for name, fn in natives.items():
        d[name] = Builtin(name, fn)
    d["displacement"] = d["deltaPos"]
