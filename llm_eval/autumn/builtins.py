"""The 34 native builtins (docs/spec/autumn.md 12), defined in the reference's order (9.3).

Each builtin is ``fn(env, args) -> value``: ``env`` is the caller's current scope, which
functions called from a builtin use as their parent (dynamic scoping).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import AutumnRuntimeError
from . import syntax as S
from .runtime import MAX_GRID_SIZE
from .values import (
    FUNCTION_TYPES,
    POSITION_T,
    AList,
    Builtin,
    CellV,
    Lambda,
    Obj,
    Pos,
    RElem,
    Scope,
    Thaw,
    UnbuiltCache,
    appended,
    infer_tag,
    list_tag,
    truthy,
    type_str,
    wrap32,
)

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["install_builtins", "NATIVE_ORDER"]

NATIVE_ORDER = ("GRID_SIZE map concat filter foldl length head at tail renderAll defined "
                "arrayEqual sqrt prev any isList uniformChoice adjPositions addObj isFreePos "
                "range print removeObj updateObj randomPositions allPositions clicked left right "
                "up down isWithinBounds allObjs rotate").split()

_POS_TAG = list_tag(POSITION_T)


def _fail(message: str) -> AutumnRuntimeError:
    return AutumnRuntimeError(message)


def _need(name: str, args: list, n: int, usage: str) -> None:
    if len(args) < n:
        raise _fail(f"{name} needs {n} argument(s): ({name} {usage}), got {len(args)}")


def _list(name: str, v, what: str = "a list") -> AList:
    if v.__class__ is not AList:
        raise _fail(f"{name} expects {what}, got a {_kind(v)}")
    return v


def _number(name: str, v) -> int:
    if v.__class__ is not int:
        raise _fail(f"{name} expects a Number, got a {_kind(v)}")
    return v


def _function(name: str, v):
    if not isinstance(v, FUNCTION_TYPES):
        raise _fail(f"{name} expects a function, got a {_kind(v)}")
    return v


def _kind(v) -> str:
    t = type_str(v)
    return t[6:].split(" ", 1)[0] if t.startswith("class ") else t


def _copy_value(v):
    c = v.__class__
    if c is Obj:
        return v.copy()
    if c is Pos:
        return Pos(v.x, v.y)
    if c is RElem:
        return RElem(v.position, v.color)
    if c is AList:
        return AList(v, v.tag)
    return v


def install_builtins(rt: "Runtime") -> None:
    call, call1 = rt.call, rt.call1
    G = rt.G

    def unary(f, env, count: int, name: str):
        """A fast ``x -> f(x)`` for list builtins, charging the ``count`` elements it will
        see: one-parameter lambdas run their body directly in a fresh call scope, skipping
        the generic call path."""
        rt.count_work(count)
        if f.__class__ is Lambda and len(f.params) == 1:
            p, body = f.params[0], f.body
            return lambda x: body(Scope({p: x}, env))
        _function(name, f)
        return lambda x: call1(f, x, env)

    def grid_size() -> int:
        n = G.vars.get("GRID_SIZE")
        if n.__class__ is not int:
            raise _fail(f"GRID_SIZE must be a Number, got a {_kind(n)}")
        if not 0 < n <= MAX_GRID_SIZE:
            rt.check_grid_size(n)
        return n

    def b_map(env, args):
        if len(args) < 2:
            _need("map", args, 2, "f list")
        f, xs = args[0], args[1]
        if xs.__class__ is not AList:
            _list("map", xs)
        g = unary(f, env, len(xs), "map")
        return AList([g(x) for x in xs])

    def b_concat(env, args):
        _need("concat", args, 1, "lists")
        out: list = []
        for x in _list("concat", args[0]):
            out.extend(_list("concat", x, "a list of lists"))
        rt.check_list(len(out))
        return AList(out)

    def b_filter(env, args):
        if len(args) < 2:
            _need("filter", args, 2, "f list")
        f, xs = args[0], args[1]
        if xs.__class__ is not AList:
            _list("filter", xs)
        g = unary(f, env, len(xs), "filter")
        kept = [x for x in xs if truthy(g(x))]
        return appended(kept)

    def b_foldl(env, args):
        _need("foldl", args, 3, "f init list")
        f, acc, xs = args[0], args[1], _list("foldl", args[2])
        _function("foldl", f)
        rt.count_work(len(xs))
        if f.__class__ is Lambda and len(f.params) == 2:
            # what call does for a two-parameter lambda, without its dispatch: one unit of
            # work and a call scope per element
            p, q = f.params
            body = f.body
            for x in xs:
                rt.work_left -= 1
                if rt.work_left < 0:
                    rt.over_budget()
                acc = body(Scope({p: acc, q: x}, env))
            return acc
        for x in xs:
            acc = call(f, [acc, x], env)
        return acc

    def b_length(env, args):
        if args and args[0].__class__ is AList:
            return len(args[0])
        _need("length", args, 1, "list")
        return len(_list("length", args[0]))

    def b_head(env, args):
        if args and args[0].__class__ is AList and args[0]:
            return args[0][0]
        _need("head", args, 1, "list")
        xs = _list("head", args[0])
        if not xs:
            raise _fail("head of an empty list")
        return xs[0]

    def b_tail(env, args):
        _need("tail", args, 1, "list")
        xs = _list("tail", args[0])
        if not xs:
            raise _fail("tail of an empty list")
        return xs[-1]

    def b_at(env, args):
        if len(args) >= 2:
            xs, i = args[0], args[1]
            if xs.__class__ is AList and i.__class__ is int and 0 <= i < len(xs):
                return xs[i]
        _need("at", args, 2, "list index")
        xs, i = _list("at", args[0]), _number("at", args[1])
        if not 0 <= i < len(xs):
            raise _fail(f"at: index {i} is out of range for a list of {len(xs)} element(s)")
        return xs[i]

    def b_render_all(env, args):
        cells: list = []
        d = G.vars
        for name in rt.history:
            if name in d:
                rt.render_value(d[name], env, cells)
        result = AList([RElem(Pos(x, y), c) for x, y, c in cells])
        if result:
            result.tag = list_tag(type_str(result[-1]))
        if "cacheRendered" in d:
            d["cacheRendered"] = result
        else:
            rt.define_global("cacheRendered", result)
        return result

    def b_defined(env, args):
        _need("defined", args, 1, '"name"')
        name = args[0]
        if name.__class__ is not str:
            raise _fail(f"defined expects a String name, got a {_kind(name)}")
        return name in G.vars

    def b_array_equal(env, args):
        _need("arrayEqual", args, 2, "list1 list2")
        a, b = _list("arrayEqual", args[0]), _list("arrayEqual", args[1])
        if len(a) != len(b):
            raise _fail(f"arrayEqual: lists of different lengths ({len(a)} and {len(b)})")
        rt.count_work(len(a))
        return appended([rt.eq(x, y) for x, y in zip(a, b)])

    def b_sqrt(env, args):
        _need("sqrt", args, 1, "n")
        n = _number("sqrt", args[0])
        if n < 0:
            raise _fail(f"sqrt of a negative number ({n})")
        return math.isqrt(n)

    def b_prev(env, args):
        _need("prev", args, 1, "name")
        return rt.prev_of_value(args[0])

    def b_any(env, args):
        _need("any", args, 1, "f list")
        if len(args) == 1:
            xs = _list("any", args[0])
            rt.count_work(len(xs))
            return any(truthy(x) for x in xs)
        f, xs = args[0], _list("any", args[1])
        if not isinstance(f, FUNCTION_TYPES):
            raise _fail(f"any: the first of two arguments must be a function, got a {_kind(f)}")
        g = unary(f, env, len(xs), "any")
        for x in xs:
            if truthy(g(x)):
                return True
        return False

    def b_is_list(env, args):
        _need("isList", args, 1, "value")
        return args[0].__class__ is AList

    def b_uniform_choice(env, args):
        _need("uniformChoice", args, 1, "list")
        xs = _list("uniformChoice", args[0])
        if not xs:
            raise _fail("uniformChoice of an empty list")
        if len(args) == 1:
            return xs[rt.draw(len(xs))]
        n = _number("uniformChoice", args[1])
        if n < 1:
            raise _fail(f"uniformChoice: the count must be at least 1, got {n}")
        rt.check_list(n)
        return appended([xs[rt.draw(len(xs))] for _ in range(n)])

    def b_adj_positions(env, args):
        _need("adjPositions", args, 1, "position")
        p = args[0]
        if p.__class__ is not Pos:
            raise _fail(f"adjPositions expects a Position, got a {_kind(p)}")
        n = grid_size()
        x, y = p.x, p.y
        out = [Pos(a, b) for a, b in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1))
               if 0 <= a < n and 0 <= b < n]
        return AList(out, _POS_TAG) if out else AList()

    def b_add_obj(env, args):
        _need("addObj", args, 2, "list value")
        xs, v = _list("addObj", args[0]), args[1]
        copied = [x.copy() if x.__class__ is Obj else _copy_value(x) for x in xs]
        if v.__class__ is AList:
            # the copies' own tag counts only when nothing is added (it is never needed else)
            tag = list_tag(type_str(v[-1])) if v else infer_tag(copied)
            copied.extend(v)
        elif v.__class__ in (Obj, Pos, RElem, CellV):
            copied.append(v)
            tag = list_tag(type_str(v))
        else:
            raise _fail(f"addObj: can only add an object or a list, got a {_kind(v)}")
        rt.check_list(len(copied))
        return AList(copied, tag)

    def b_is_free_pos(env, args):
        _need("isFreePos", args, 1, "position")
        p = args[0]
        if p.__class__ is not Pos:
            raise _fail(f"isFreePos expects a Position, got a {_kind(p)}")
        return (p.x, p.y) not in rt.occupied

    def b_range(env, args):
        _need("range", args, 2, "start end")
        a, b = _number("range", args[0]), _number("range", args[1])
        if a >= b:
            return AList()
        rt.check_list(b - a)
        return AList(range(a, b), "List<Number>")

    def b_print(env, args):
        _need("print", args, 1, "value")
        return args[0]

    def b_remove_obj(env, args):
        _need("removeObj", args, 1, "list value")
        if len(args) == 1:
            v = args[0]
            if v.__class__ is not int and v.__class__ is not bool and v.__class__ is not str:
                ident = v.ident
                d = G.vars
                for name in rt.global_order.order:
                    held = d.get(name)
                    if held is not None and held.__class__ is v.__class__ and \
                            held.ident == ident:
                        rt.delete_global(name)
                        break
            return v
        xs, what = _list("removeObj", args[0]), args[1]
        if isinstance(what, FUNCTION_TYPES):
            g = unary(what, env, len(xs), "removeObj")
            kept = [x for x in xs if not truthy(g(x))]
        elif what.__class__ is AList:
            rt.count_work(len(xs) + len(what))
            idents = {w.ident for w in what if hasattr(w, "ident")}
            kept = [x for x in xs if getattr(x, "ident", None) not in idents]
        elif hasattr(what, "ident") and what.__class__ is not Builtin:
            rt.count_work(len(xs))
            ident = what.ident
            kept = [x for x in xs if getattr(x, "ident", None) != ident]
        else:
            raise _fail(f"removeObj: the second argument must be a function, an object or a "
                        f"list, got a {_kind(what)}")
        return AList(kept, infer_tag(kept))

    def b_update_obj(env, args):
        _need("updateObj", args, 2, "value f")
        target = args[0]
        if target.__class__ is AList:
            f = args[1]
            if not isinstance(f, FUNCTION_TYPES):
                raise _fail(f"updateObj on a list needs a function, got a {_kind(f)}")
            g = unary(f, env, len(target), "updateObj")
            if len(args) == 2:
                return AList([g(x) for x in target])
            pred = args[2]
            _function("updateObj", pred)
            test = unary(pred, env, len(target), "updateObj")
            out = [g(x) if truthy(test(x)) else x for x in target]
            return appended(out)
        if target.__class__ is Obj:
            second = args[1]
            if len(args) >= 3:
                if second.__class__ is not str:
                    raise _fail(f"updateObj obj \"field\" value: the field name must be a "
                                f"String, got a {_kind(second)}")
                if second not in target.fields:
                    raise _fail(f"updateObj: {target.cls.name} has no field '{second}'")
                return target.with_field(second, args[2])
            if isinstance(second, FUNCTION_TYPES):
                return call1(second, target, env)
            raise _fail(f"updateObj obj needs a function or \"field\" value, got a "
                        f"{_kind(second)}")
        raise _fail(f"updateObj expects a list or an object, got a {_kind(target)}")

    def b_random_positions(env, args):
        _need("randomPositions", args, 2, "n k")
        n, k = args[0], args[1]
        if n.__class__ is not int:
            raise _fail(f"randomPositions: the grid size must be a Number, got a {_kind(n)}")
        _number("randomPositions", k)
        rt.check_list(k)
        out = []
        for _ in range(k):
            x = rt.draw(n) if n > 0 else 0
            y = rt.draw(n) if n > 0 else 0
            out.append(Pos(x, y))
        return appended(out)

    def b_all_positions(env, args):
        _need("allPositions", args, 1, "n")
        w = _number("allPositions", args[0])
        h = _number("allPositions", args[1]) if len(args) > 1 else w
        if w < 0 or h < 0:
            raise _fail(f"allPositions: negative size {w} x {h}")
        rt.check_list(w * h)
        out = [Pos(x, y) for x in range(w) for y in range(h)]
        return AList(out, _POS_TAG) if out else AList()

    def b_clicked(env, args):
        if len(args) > 1:
            raise _fail(f"clicked takes at most one argument, got {len(args)}")
        click = rt.click
        if click is None:
            if rt.click_log is not None:
                rt.log_click_query(args, env)
            return False
        rt.define_global("click", Pos(click[0], click[1]))
        if not args:
            return True
        cells: list = []
        rt.render_value(args[0], env, cells)
        cx, cy = click
        for x, y, _ in cells:
            if x == cx and y == cy:
                return True
        return False

    def arrow(name):
        def pressed(env, args):
            return rt.arrows[name]
        return pressed

    def b_is_within_bounds(env, args):
        _need("isWithinBounds", args, 1, "object")
        cells: list = []
        v = args[0]
        if v.__class__ is not Obj and v.__class__ is not AList:
            raise _fail(f"isWithinBounds expects an object or a list, got a {_kind(v)}")
        rt.render_value(v, env, cells)
        n = grid_size()
        for x, y, _ in cells:
            if not (0 <= x < n and 0 <= y < n):
                return False
        return True

    def b_all_objs(env, args):
        out: list = []
        d = G.vars

        def collect(v):
            if v.__class__ is Obj:
                out.append(v)
            elif v.__class__ is AList:
                rt.count_work(len(v))
                for x in v:
                    collect(x)
            elif v.__class__ is UnbuiltCache:   # the work of its list, which holds no object
                rt.count_work(len(v.cells))
        for name in rt.global_order.order:
            if name in d:
                collect(d[name])
        return appended(out)

    def b_rotate(env, args):
        _need("rotate", args, 1, "object")
        o = args[0]
        if o.__class__ is not Obj:
            raise _fail(f"rotate expects an object, got a {_kind(o)}")
        for c in o.fields["elems"]:
            if c.__class__ is not CellV:
                raise _fail(f"rotate: the cells of a {o.cls.name} are not Cell values")
            _rotate_cell(rt, c)
        return o.copy()

    natives = {
        "map": b_map, "concat": b_concat, "filter": b_filter, "foldl": b_foldl,
        "length": b_length, "head": b_head, "at": b_at, "tail": b_tail,
        "renderAll": b_render_all, "defined": b_defined, "arrayEqual": b_array_equal,
        "sqrt": b_sqrt, "prev": b_prev, "any": b_any, "isList": b_is_list,
        "uniformChoice": b_uniform_choice, "adjPositions": b_adj_positions,
        "addObj": b_add_obj, "isFreePos": b_is_free_pos, "range": b_range, "print": b_print,
        "removeObj": b_remove_obj, "updateObj": b_update_obj,
        "randomPositions": b_random_positions, "allPositions": b_all_positions,
        "clicked": b_clicked, "left": arrow("left"), "right": arrow("right"),
        "up": arrow("up"), "down": arrow("down"), "isWithinBounds": b_is_within_bounds,
        "allObjs": b_all_objs, "rotate": b_rotate,
    }
    for name in NATIVE_ORDER:
        if name == "GRID_SIZE":
            rt.define_global("GRID_SIZE", 16)
        else:
            rt.define_global(name, Builtin(name, natives[name]))
    rt.prev_builtin = G.vars["prev"]


def _rotate_cell(rt: "Runtime", c: CellV) -> None:
    """Rewrite a cell in place: new x = -(old y), new y = old x (a clockwise quarter turn)."""
    if rt.frozen is not None and id(c) in rt.frozen:
        raise Thaw       # a cell a saved state holds (state.py)
    old_x_node, old_fx, old_cx = c.nx, c.fx, c.cx
    if c.fy is not None:
        c.fx = wrap32(-c.fy)
        c.nx = S.Unary("-", c.ny)
        c.cx = None
    else:
        ycl = c.cy
        c.nx = S.Unary("-", c.ny)
        c.fx = None

        def neg(env, ycl=ycl):
            v = ycl(env)
            if v.__class__ is not int:
                raise _fail("a rotated cell has a non-Number coordinate")
            return wrap32(-v)
        c.cx = neg
    c.ny, c.fy, c.cy = old_x_node, old_fx, old_cx
    c.vy = c.vx
    c.vx = None
