"""Run-time values of Autumn (docs/spec/autumn.md 5): numbers are Python ints, Bools are Python bools,
strings are Python strs (without the quotes the reference keeps). Everything else is a slots
class here. Instances and lists carry an *identity* (5.7), a number that assignments move
around; identities are only ever compared.

The primitives every evaluator shares live here too: 32-bit wrapping and division, field
reads with the reference's errors, the tag of an appended list. The compiler's closures, the
fused code and the builtins all bind them from this module, which imports nothing else of the
interpreter.
"""

from __future__ import annotations

import dis
import itertools

from ..errors import AutumnRuntimeError

__all__ = [
    "new_id", "Scope", "AList", "Pos", "RElem", "CellV", "Obj", "ObjClass", "Lambda",
    "Builtin", "BoundRender", "CellThunk", "TypeRef", "FUNCTION_TYPES", "IDENTITY_TYPES",
    "truthy", "type_str", "list_tag", "infer_tag", "POSITION_T", "RELEM_T", "CELL_T",
    "UNKNOWN_LIST", "UNKNOWN", "SCOPE_PLAIN", "SCOPE_OBJECT", "SCOPE_BORROWED",
    "INT_MIN", "INT_MAX", "wrap32", "runtime_error", "int_divide", "field_value", "appended",
    "Thaw", "relems", "reads_scope", "UnbuiltCache", "MovableCells", "moved_cells",
]

new_id = itertools.count(1).__next__
_new_object = object.__new__
_list_init = list.__init__

SCOPE_PLAIN = 0
SCOPE_OBJECT = 1      # a constructor's or a render's scope of fields (7.2 skips the outermost)
SCOPE_BORROWED = 2    # an object render scope whose dict is the instance's own field table


class Scope:
    """One link of the (dynamically scoped) chain: a dict of names and its parent."""

    __slots__ = ("vars", "parent", "kind")

    def __init__(self, vars: dict, parent: "Scope | None", kind: int = SCOPE_PLAIN) -> None:
        self.vars = vars
        self.parent = parent
        self.kind = kind


class AList(list):
    """An Autumn list: a Python list plus the reference's type tag and an identity."""

    __slots__ = ("tag", "ident")

    def __init__(self, items=(), tag: str = "List<Unknown>") -> None:
        _list_init(self, items)
        self.tag = tag
        self.ident = new_id()


class Pos:
    __slots__ = ("x", "y", "ident")

    def __init__(self, x: int, y: int) -> None:
        self.x = x
        self.y = y
        self.ident = new_id()


class RElem:
    __slots__ = ("position", "color", "ident")

    def __init__(self, position: Pos, color) -> None:
        self.position = position
        self.color = color
        self.ident = new_id()


def relems(cells) -> list:
    """``[RElem(Pos(x, y), colour) for x, y, colour in cells]`` (identities drawn in the same
    order), without the calls of __init__: every host render builds one for ``cacheRendered``."""
    out = []
    append = out.append
    for x, y, colour in cells:
        p = _new_object(Pos)
        p.x = x
        p.y = y
        p.ident = new_id()
        r = _new_object(RElem)
        r.position = p
        r.color = colour
        r.ident = new_id()
        append(r)
    return out


class UnbuiltCache:
    """What a host render leaves in ``cacheRendered`` when nothing can read it (a program whose
    text never names it, and no evaluated expression that did): the rendered (x, y, colour)
    cells, a list no one changes. ``Runtime.build_caches`` makes the list of RenderedElems the
    render would have made, with new identities, when an evaluated expression asks for it.
    Building that list was a tenth of stepping a typical world (two objects per cell at every
    render); saved states now share this one object instead of copying the list."""

    __slots__ = ("cells",)

    def __init__(self, cells: list) -> None:
        self.cells = cells


class CellV:
    """A Cell value (7.2): each of x, y, colour is frozen (a constant) or deferred.

    ``nx, ny, nc`` are the syntax nodes (frozen numbers become literal nodes) used for printing
    and equality; ``fx, fy, fc`` the constants or None; ``cx, cy, cc`` the compiled deferred
    expressions, evaluated against ``snap`` (the names copied at construction) and the render
    chain.
    """

    __slots__ = ("nx", "ny", "nc", "fx", "fy", "fc", "cx", "cy", "cc", "snap", "ident",
                 "vx", "vy", "vc", "reads")

    def __init__(self, nx, ny, nc, fx, fy, fc, cx, cy, cc, snap: dict,
                 reads: frozenset | None = None) -> None:
        self.nx, self.ny, self.nc = nx, ny, nc
        self.fx, self.fy, self.fc = fx, fy, fc
        self.cx, self.cy, self.cc = cx, cy, cc
        self.snap = snap
        # the names its parts read when they only read (no calls, assignments or lets), so
        # a render may evaluate them straight against the object's fields (runtime.py)
        self.reads = reads
        self.ident = new_id()
        # a deferred part that is a bare name (a field, usually) is looked up directly
        self.vx = nx.name if nx.__class__.__name__ == "Var" else None
        self.vy = ny.name if ny.__class__.__name__ == "Var" else None
        self.vc = nc.name if nc.__class__.__name__ == "Var" else None


class ObjClass:
    """A declared object type: its fields, their types and the compiled cell expression."""

    __slots__ = ("name", "field_names", "field_types", "cell", "type_str", "line", "column")

    def __init__(self, name, field_names, field_types, cell, type_string, line, column) -> None:
        self.name = name
        self.field_names = field_names      # declared fields, in order
        self.field_types = field_types      # type string per declared field, or None
        self.cell = cell                    # compiled cell expression
        self.type_str = type_string
        self.line = line
        self.column = column


class MovableCells(tuple):
    """An object's rendered cells (``Obj.rendered``) that depend on its ``origin`` only by
    translation: no cell reads the field, so a copy moved by (dx, dy) with every other field
    the same renders these cells moved by (dx, dy) (``moved_cells``)."""

    __slots__ = ()


def moved_cells(cells: MovableCells, dx: int, dy: int) -> MovableCells:
    """``cells`` moved by (dx, dy): what rendering the moved copy would append."""
    return MovableCells([(x + dx, y + dy, c) for x, y, c in cells])


class Obj:
    # ``rendered``: the object's cells as (x, y, colour) once rendered, when they can only
    # depend on its own fields (see Runtime.render_obj: a tuple, or MovableCells); None
    # until then
    __slots__ = ("cls", "fields", "ident", "rendered")

    def __init__(self, cls: ObjClass, fields: dict) -> None:
        self.cls = cls
        self.fields = fields
        self.ident = new_id()
        self.rendered = None

    def copy(self) -> "Obj":
        """A copy with the same fields (``addObj`` copies every object of its list), which
        renders as the object does: it keeps what is known of the object's render."""
        new = _new_object(Obj)   # Obj(self.cls, dict(self.fields)) without calling __init__
        new.cls = self.cls
        new.fields = dict(self.fields)
        new.ident = new_id()
        new.rendered = self.rendered
        return new

    def with_field(self, field: str, value) -> "Obj":
        """``updateObj``'s copy, with ``field`` (one of its fields) set to ``value``. A copy
        whose field keeps the very same value keeps what is known of the object's render (as
        ``copy``); a copy that only moves (a Position with Number coordinates in ``origin``) of
        an object whose cells are ``MovableCells`` gets them moved, rendered without evaluating
        a cell."""
        new = _new_object(Obj)
        new.cls = self.cls
        new.fields = fields = dict(self.fields)
        same = fields[field] is value
        fields[field] = value
        new.ident = new_id()
        if same:                 # the same fields: the copy renders as the object does
            new.rendered = self.rendered
            return new
        new.rendered = None
        if field == "origin" and self.rendered.__class__ is MovableCells:
            old = self.fields["origin"]
            if value.__class__ is Pos and value.x.__class__ is int and \
                    value.y.__class__ is int and old.__class__ is Pos and \
                    old.x.__class__ is int and old.y.__class__ is int:
                new.rendered = moved_cells(self.rendered, value.x - old.x, value.y - old.y)
        return new


class Lambda:
    __slots__ = ("params", "body", "node", "ident")

    def __init__(self, params, body, node) -> None:
        self.params = params
        self.body = body
        self.node = node
        self.ident = new_id()


class Builtin:
    """A builtin function, called as ``fn(env, args)`` with the caller's scope. ``scopeless``:
    ``fn`` never reads ``env``, so it can neither see nor change a variable of its caller's,
    and the fused code calls it without making the scopes it keeps lazily (``reads_scope``)."""

    __slots__ = ("name", "fn", "ident", "scopeless")

    def __init__(self, name: str, fn) -> None:
        self.name = name
        self.fn = fn
        self.ident = new_id()
        self.scopeless = not reads_scope(fn)


_SCOPE_READERS: dict = {}    # code object -> whether its first parameter is ever read


def reads_scope(fn) -> bool:
    """Whether the builtin function ``fn(env, args)`` may use ``env``: True unless ``fn`` is
    plain Python code whose instructions never name its first parameter (not even for a
    nested function to capture), and which cannot reach its frame's variables otherwise."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_argcount < 1:
        return True
    known = _SCOPE_READERS.get(code)
    if known is None:
        env = code.co_varnames[0]
        known = (env in code.co_cellvars or "locals" in code.co_names
                 or "vars" in code.co_names or "sys" in code.co_names
                 or any(ins.argval == env for ins in dis.get_instructions(code)
                        if ins.opname != "LOAD_CONST"))
        _SCOPE_READERS[code] = known
    return known


class BoundRender:
    """``(.. obj render)``: a zero-argument function returning the object's rendered cells."""

    __slots__ = ("obj", "ident")

    def __init__(self, obj: Obj) -> None:
        self.obj = obj
        self.ident = new_id()


class CellThunk:
    """``(.. cell x)``: a deferred cell argument; calling it evaluates it."""

    __slots__ = ("cell", "which", "ident")

    def __init__(self, cell: CellV, which: str) -> None:
        self.cell = cell
        self.which = which
        self.ident = new_id()


class TypeRef:
    """A type used as a callee: Position, RenderedElem, Cell, a declared object, or a scalar."""

    __slots__ = ("name", "cls")

    def __init__(self, name: str, cls: ObjClass | None = None) -> None:
        self.name = name
        self.cls = cls


class Thaw(BaseException):
    """Raised just before an operation would change a value in place that the running state
    shares with a saved state (``Runtime.frozen``, see state.py). The interpreter then gives
    the running state copies of its own and runs the operation again. A BaseException, so
    that nothing catching a program's errors (``except Exception``) can swallow it."""


FUNCTION_TYPES = (Lambda, Builtin, BoundRender, CellThunk)
IDENTITY_TYPES = (AList, Pos, RElem, CellV, Obj, Lambda, Builtin, BoundRender, CellThunk)


def truthy(v) -> bool:
    """Only ``false`` and the empty list are falsy (docs/spec/autumn.md 5.2)."""
    return not (v is False or (v.__class__ is AList and not v))


POSITION_T = "class Position {x: Number, y: Number, }"
RELEM_T = f"class RenderedElem {{position: {POSITION_T}, color: String, }}"
CELL_T = "class Cell {x: Expr, y: Expr, color: Expr, }"
UNKNOWN_LIST = "List<Unknown>"
UNKNOWN = "Unknown"

_SIMPLE_TYPES = {int: "Number", bool: "Bool", str: "String", Pos: POSITION_T,
                 RElem: RELEM_T, CellV: CELL_T, Lambda: "AutumnFunc", Builtin: "AutumnFunc",
                 BoundRender: "AutumnFunc", CellThunk: "Expr"}


def type_str(v) -> str:
    """The reference's printed type of a value (docs/spec/autumn.md 5.5)."""
    t = v.__class__
    s = _SIMPLE_TYPES.get(t)
    if s is not None:
        return s
    if t is Obj:
        return v.cls.type_str
    if t is AList:
        return v.tag
    return UNKNOWN


_tags: dict[str, str] = {}


def list_tag(elem_type: str) -> str:
    tag = _tags.get(elem_type)
    if tag is None:
        tag = _tags[elem_type] = f"List<{elem_type}>"
    return tag


def _type_object(v):
    """What the reference compares to decide if list elements share one type (5.4)."""
    t = v.__class__
    if t is Obj:
        return v.cls
    if t is AList:
        return v            # every list has a type object of its own
    return t


def infer_tag(items) -> str:
    """Tag of a list literal or a copied list: List<T> when all share one type object."""
    if not items:
        return UNKNOWN_LIST
    first = _type_object(items[0])
    for v in items:
        if _type_object(v) is not first:
            return UNKNOWN
    return list_tag(type_str(items[0]))


# -- primitives shared by the compiler, the fused code and the builtins -----------------------
INT_MIN = -2147483648
INT_MAX = 2147483647


def wrap32(v: int) -> int:
    """``v`` wrapped to a signed 32-bit Number, as the reference's ints overflow."""
    return ((v + 2147483648) & 0xFFFFFFFF) - 2147483648


def runtime_error(message: str, node=None) -> AutumnRuntimeError:
    """A run-time error at ``node``'s line and column (any syntax node; None: no position)."""
    if node is None:
        return AutumnRuntimeError(message)
    return AutumnRuntimeError(message, line=node.line, column=node.column)


def int_divide(a: int, b: int, node, is_div: bool) -> int:
    """``/`` (truncating) or ``%`` (C remainder) of two Numbers, with the reference's errors
    (``node``: the operator's syntax node)."""
    if b == 0:
        raise runtime_error(f"division by zero in ({node.spelling} {a} 0)", node)
    if a == INT_MIN and b == -1:
        raise runtime_error(f"({node.spelling} -2147483648 -1) overflows 32 bits", node)
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q if is_div else a - b * q


def field_value(o, field: str, node=None):
    """``(.. o field)`` on any value, with the errors the reference raises (4.10)."""
    c = o.__class__
    if c is Obj:
        fields = o.fields
        if field in fields:
            return fields[field]
        if field == "render":
            return BoundRender(o)
        raise runtime_error(f"object {o.cls.name} has no field '{field}'", node)
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
    elif c is CellV:
        if field in ("x", "y", "color"):
            return CellThunk(o, field)
    else:
        raise runtime_error(f"field access '{field}' on a {type_str(o)}, which has no fields",
                            node)
    raise runtime_error(f"a {type_str(o).split(' {')[0]} has no field '{field}'", node)


def appended(items: list) -> AList:
    """A list built by appending: its tag is that of the last element appended (5.4)."""
    if not items:
        return AList()
    return AList(items, list_tag(type_str(items[-1])))
