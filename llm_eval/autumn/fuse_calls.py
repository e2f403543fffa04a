"""The fused tier's calls (``fuse.py``): the ordinary call, builtins made inline (``at``,
``Position``, field updates), lambda bodies of top-level definitions inlined at their call
sites, and lambda literals given to list builtins run in the builtin's own loop.

Inlined parameters live in Python locals; the call scope dynamic scoping needs is built
only when something could look into it (a call the body makes), and the parameters are
reloaded from it after such a call, since a callee may assign them through the chain. A
let's scope is built lazily the same way (``fuse._Generator.let``), and a builtin whose code
never reads its scope argument (``values.reads_scope``: ``length``, ``in``, ``at``, the
movers, ...) is called without building any: it can neither see nor assign our names."""

from __future__ import annotations

from ..errors import AutumnError
from . import syntax as S
from .fuse_shape import count, size

__all__ = ["CallEmitter", "Let", "Inlined", "call0"]

# builtins whose lambda-literal argument runs inline: (lambda position, list position, kind)
_LIST_BUILTINS = {"map": (0, 1, "map"), "filter": (0, 1, "filter"),
                  "any": (0, 1, "any"), "updateObj": (1, 0, "map"),
                  "removeObj": (1, 0, "remove")}
# With lets made lazily, bodies up to 120 nodes inline (wildfire's `burn`, life's `nextCell`),
# and one level deeper than before, so that the body of what became inlined still inlines the
# small helpers it calls (life's `aliveAt`, eight a cell): on 2 cores, 300 steps of each of
# the 43 worlds took 4% less CPU (wildfire 23%, sandbox 10%, reservoir 8%) and life ran 39%
# faster, sand 7%, swarm 10%; the generated source of the 43 worlds grew from 157,000 to
# 174,000 lines (tests/autumn/test_fuse.py, docs/reference.md "Speed")
_MAX_INLINE_DEPTH = 4
_MAX_INLINE_SIZE = 120


class CallEmitter:
    """Call emission, mixed into the fused tier's generator."""

    # -- calls, and lambda bodies inlined at their call sites -----------------------------------
    def env(self, depth: int | None = None) -> str:
        """The scope code emitted here runs in: ``env``, a let's scope, or the call scope of
        an inlined lambda body, built (once, on first need) from its table or its parameters'
        values. An expression: it builds the scopes that do not exist yet when evaluated."""
        if depth is None:
            depth = len(self.frames)
        if depth == 0:
            return "env"
        fr = self.frames[depth - 1]
        if fr.__class__ is Let:
            table = fr.table
        else:
            table = "{" + ", ".join(f"{self.const(p)}: {t}" for p, t in fr.params.items()) + "}"
        # an existing scope's parents exist (each was built with its parent)
        return (f"({fr.scope} if {fr.scope} is not None else "
                f"({fr.scope} := Scope({table}, {self.env(depth - 1)})))")

    def real_env(self) -> str:
        """The innermost let's scope (built when evaluated if need be), or ``env``: enough to
        look up a name that no parameter can bind."""
        for depth in range(len(self.frames), 0, -1):
            if self.frames[depth - 1].__class__ is Let:
                return self.env(depth)
        return "env"

    def after_call(self) -> None:
        """Called code may have assigned names of ours: reload what we keep in locals."""
        self.line("d = env.vars")   # an assignment may have copied a borrowed scope's table
        for fr in self.frames:
            if fr.__class__ is Inlined:
                for p, t in fr.params.items():
                    # reloaded: nothing is known of it any more, here or after this block
                    self.known_int.discard(t)
                    for facts in self.facts:
                        facts.discard(t)
                    self.line(f"if {fr.scope} is not None: {t} = {fr.scope}.vars[{self.const(p)}]")

    def inline_target(self, fname: str, n: int) -> S.Lambda | None:
        lam = self.comp.lambda_defs.get(fname)
        if lam is None or any(fr.name == fname for fr in self.frames
                              if fr.__class__ is Inlined):
            return None
        return lam if self.inlinable_lambda(lam, n) else None

    def inlinable_lambda(self, lam: S.Lambda, n: int) -> bool:
        """Whether a lambda of ``n`` parameters can run inline: every node of its body can
        (lets too; no leaves), the body is small, and inlining is not too deep already."""
        depth = sum(1 for fr in self.frames if fr.__class__ is Inlined)
        if len(lam.params) != n or len(set(lam.params)) != n or depth >= _MAX_INLINE_DEPTH:
            return False
        n_nodes = size(lam.body, self.comp)
        return 0 < n_nodes <= _MAX_INLINE_SIZE and n_nodes == count(lam.body)

    def list_loop(self, kind: str, lam: S.Lambda, xs: str, t: str) -> None:
        """map, filter, any, updateObj and removeObj over a lambda literal: the loop of the
        builtin with the lambda's body inline (builtins.py does the same per element)."""
        x, out = self.temp(), self.temp()
        self.line(f"COUNT_WORK(len({xs}))")
        self.line(f"{out} = []" if kind != "any" else f"{t} = False")
        self.line(f"for {x} in {xs}:")
        self.open_block()
        v = self.temp_of(self.inline_body("<lambda>", lam, [x]))   # a literal body too
        truth = f"not ({v} is False or ({v}.__class__ is AList and not {v}))"
        if kind == "map":
            self.line(f"{out}.append({v})")
        elif kind == "filter":
            self.line(f"if {truth}: {out}.append({x})")
        elif kind == "remove":
            self.line(f"if not ({truth}): {out}.append({x})")
        else:
            self.line(f"if {truth}:")
            self.line(f"    {t} = True")
            self.line("    break")
        self.close_block()
        if kind == "any":
            return
        if kind == "map":
            self.line(f"{t} = AList({out})")
        elif kind == "filter":
            self.line(f"{t} = APPENDED({out})")
        else:
            self.line(f"{t} = AList({out}, INFER_TAG({out}))")

    def inline_body(self, fname: str, lam: S.Lambda, args: list[str]) -> str:
        params = {}
        for p, a in zip(lam.params, args):
            t = self.temp()
            self.line(f"{t} = {a}")
            if a in self.known_int or a.lstrip("(-").rstrip(")").isdigit():
                # a copy of a value known to be a Number (a checked temporary or a literal):
                # its checks are not repeated; a reload after a call forgets it (after_call)
                self.known_int.add(t)
            params[p] = t
        scope = self.temp()
        self.line(f"{scope} = None")
        self.frames.append(Inlined(fname, params, scope))
        try:
            return self.expr(lam.body)
        finally:
            self.frames.pop()

    def call(self, node: S.Call) -> str:
        comp = self.comp
        fname = node.fn.name
        n = len(node.args)
        # the callee's lookup through the scopes, taken only when the fast one misses: the
        # global table's value, or for Position the type itself
        callee = self.fallback(node.fn)
        name = self.const(fname)
        f, c, t = self.temp(), self.temp(), self.temp()
        line = "None" if node.line is None else int(node.line)
        col = "None" if node.column is None else int(node.column)
        if fname == "Position":
            # what the type name's lookup returns unless the type is gone (Compiler.c_Var)
            self.line(f"{f} = TYPES.get({name})")
        else:
            self.line(f"{f} = g.get({name}) if {self.flag(fname)}[0] else None")
        self.line(f"if {f} is None: {f} = {callee}({self.real_env()})")
        self.line("try:")
        self.open_block()
        prev_name = node.args[0].name if n == 1 and type(node.args[0]) is S.Var else None
        if prev_name is not None:
            # (prev name) passes the name unevaluated when the callee is prev (docs/spec/autumn.md 8.3)
            self.line(f"if {f} is PREV: {t} = PREV_BY_NAME({self.const(prev_name)})")
            self.line("else:")
            self.open_block()
        args = [self.expr(a) for a in node.args]
        arglist = ", ".join(args)
        self.line(f"{c} = {f}.__class__")
        first = "if"
        if fname == "at" and n == 2:
            # a literal list argument would read ``(0)[i]``, which Python's compiler warns about
            xs, i = self.temp_of(args[0]), args[1]
            number = "" if i in self.known_int else f"{i}.__class__ is int and "
            self.line(f"if {f} is AT and {xs}.__class__ is AList and {number}"
                      f"0 <= {i} < len({xs}): {t} = {xs}[{i}]")
            first = "elif"
        elif fname == "Position":
            x, y = args
            numbers = "".join(f" and {v}.__class__ is int" for v in (x, y)
                              if v not in self.known_int)
            self.line(f"if {f} is POSITION{numbers}: {t} = Pos({x}, {y})")
            first = "elif"
        elif fname == "updateObj" and n == 3 and type(node.args[1]) is S.Str:
            o, field, v = args
            self.line(f"if {f} is UPDATE_OBJ and {o}.__class__ is Obj and {field} in {o}.fields:")
            self.line(f"    {t} = {o}.with_field({field}, {v})")
            first = "elif"
        loop = _LIST_BUILTINS.get(fname)
        if loop is not None and n == 2:
            fpos, lpos, kind = loop
            lam_node, guard = node.args[fpos], ""
            if type(lam_node) is S.Var:
                # a function named by a global: its definition, if the name still holds it
                named = lam_node.name
                lam_node = comp.lambda_defs.get(named)
                if lam_node is not None and named not in comp.local_names:
                    guard = (f" and {args[fpos]}.__class__ is LambdaV and "
                             f"{args[fpos]}.node is {self.obj(lam_node)}")
                else:
                    lam_node = None
            if type(lam_node) is S.Lambda and self.inlinable_lambda(lam_node, 1):
                self.line(f"{first} {f} is {self.builtin(fname)} and "
                          f"{args[lpos]}.__class__ is AList{guard}:")
                self.open_block()
                self.list_loop(kind, lam_node, args[lpos], t)
                self.close_block()
                first = "elif"
        lam = None if fname == "Position" else self.inline_target(fname, n)
        if lam is not None:
            # the program's own definition of this name: run its body right here
            # (not counted against the work budget: an inlined body cannot recurse, and the
            # calls it makes are counted)
            self.line(f"{first} {c} is LambdaV and {f}.node is {self.obj(lam)}:")
            self.open_block()
            v = self.inline_body(fname, lam, args)
            self.line(f"{t} = {v}")
            self.close_block()
            first = "elif"
        self.line(f"{first} {c} is LambdaV and len({f}.params) == {n}:")
        self.open_block()
        self.line("rt.work_left -= 1")
        self.line("if rt.work_left < 0: OVER_BUDGET()")
        binds = ", ".join(f"{f}.params[{i}]: {a}" for i, a in enumerate(args))
        self.line(f"{t} = {f}.body(Scope({{{binds}}}, {self.env()}))")
        self.after_call()
        self.close_block()
        # a builtin that never reads the caller's scope needs none of ours made, and cannot
        # have changed a variable we keep in a local
        self.line(f"elif {c} is Builtin and {f}.scopeless:")
        self.line(f"    {t} = {f}.fn(env, [{arglist}])")
        self.line(f"elif {c} is Builtin:")
        self.open_block()
        self.line(f"{t} = {f}.fn({self.env()}, [{arglist}])")
        self.after_call()
        self.close_block()
        self.line("else:")
        self.open_block()
        self.line(f"{t} = CALL({f}, [{arglist}], {self.env()})")
        self.after_call()
        self.close_block()
        if prev_name is not None:
            self.close_block()
        self.close_block()
        self.line("except AutumnError as e:")
        self.line(f"    raise e.locate({line}, {col})")
        return t



class Let:
    """A let scope of the fused code: the Scope's local name and its table's."""

    __slots__ = ("scope", "table")

    def __init__(self, scope: str, table: str) -> None:
        self.scope = scope
        self.table = table


class Inlined:
    """A lambda body being inlined: its parameters' locals and its (lazy) call scope."""

    __slots__ = ("name", "params", "scope")

    def __init__(self, name: str, params: dict[str, str], scope: str) -> None:
        self.name = name
        self.params = params
        self.scope = scope




def call0(rt, node: S.Logic):
    line, col = node.line, node.column
    call = rt.call

    def call0(v, env):
        try:
            return call(v, [], env)
        except AutumnError as e:
            e.locate(line, col)
            raise
    return call0
