"""Autumn syntax tree and the parser from s-expressions (docs/spec/autumn.md 2.3-2.5, 3, 4).

Every node keeps the line and column of the text it came from, so that errors raised while
compiling or evaluating it can say where they are.
"""

from __future__ import annotations

from ..errors import AutumnLimitError, AutumnSyntaxError
from ..quoting import quote
from .reader import INT_MAX, SAtom, SList, first_tokens, read

__all__ = [
    "Node", "Num", "Str", "BoolLit", "Var", "Annot", "Let", "If", "Bin", "Logic", "Unary",
    "InitNext", "Assign", "FieldAssign", "Field", "Lambda", "ListLit", "Call",
    "TName", "TList", "ObjectDecl", "OnDecl", "ExprStmt",
    "KEYWORDS", "parse_program", "parse_statements", "parse_expression_text", "parse_expr",
    "node_key", "collect_names", "print_node", "maybe_local_names", "rebound_names",
    "cell_names", "redefinable_names",
]

KEYWORDS = frozenset("program object on let if then else true false fn initnext and or nil"
                     .split())
_BINARY = frozenset("+ - * / % == != < <= > >=".split())
#: The most top-level statements a program may have: 40 times the most a bundled world has, and
#: with ``reader.MAX_TEXT_BYTES`` what keeps loading and ``autumn check`` within seconds.
MAX_STATEMENTS = 5_000


class Node:
    __slots__ = ("line", "column", "_key")

    def __init__(self, line: int, column: int) -> None:
        self.line = line
        self.column = column
        self._key = None


class Num(Node):
    __slots__ = ("value",)

    def __init__(self, value: int, line: int = 0, column: int = 0) -> None:
        super().__init__(line, column)
        self.value = value


class Str(Node):
    """A string literal; ``text`` is stored without the quotes (printing adds them back)."""

    __slots__ = ("text",)

    def __init__(self, text: str, line: int, column: int) -> None:
        super().__init__(line, column)
        self.text = text


class BoolLit(Node):
    __slots__ = ("value",)

    def __init__(self, value: bool, line: int, column: int) -> None:
        super().__init__(line, column)
        self.value = value


class Var(Node):
    __slots__ = ("name",)

    def __init__(self, name: str, line: int, column: int) -> None:
        super().__init__(line, column)
        self.name = name


class Annot(Node):
    __slots__ = ("name", "type")

    def __init__(self, name: str, type_: "TName | TList", line: int, column: int) -> None:
        super().__init__(line, column)
        self.name = name
        self.type = type_


class Let(Node):
    __slots__ = ("body",)

    def __init__(self, body: list[Node], line: int, column: int) -> None:
        super().__init__(line, column)
        self.body = body


class If(Node):
    __slots__ = ("cond", "then", "other")

    def __init__(self, cond: Node, then: Node, other: Node, line: int, column: int) -> None:
        super().__init__(line, column)
        self.cond = cond
        self.then = then
        self.other = other


class Bin(Node):
    __slots__ = ("op", "spelling", "left", "right")

    def __init__(self, op: str, spelling: str, left: Node, right: Node, line: int,
                 column: int) -> None:
        super().__init__(line, column)
        self.op = op
        self.spelling = spelling
        self.left = left
        self.right = right


class Logic(Node):
    """``&``/``|`` and their spellings; only ``|`` and ``or`` are OR (docs/spec/autumn.md 4.5)."""

    __slots__ = ("is_or", "spelling", "left", "right")

    def __init__(self, is_or: bool, spelling: str, left: Node, right: Node, line: int,
                 column: int) -> None:
        super().__init__(line, column)
        self.is_or = is_or
        self.spelling = spelling
        self.left = left
        self.right = right


class Unary(Node):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: Node, line: int = 0, column: int = 0) -> None:
        super().__init__(line, column)
        self.op = op
        self.operand = operand


class InitNext(Node):
    __slots__ = ("init", "next")

    def __init__(self, init: Node, next_: Node, line: int, column: int) -> None:
        super().__init__(line, column)
        self.init = init
        self.next = next_


class Assign(Node):
    __slots__ = ("name", "value")

    def __init__(self, name: str, value: Node, line: int, column: int) -> None:
        super().__init__(line, column)
        self.name = name
        self.value = value


class FieldAssign(Node):
    __slots__ = ("obj", "field", "value")

    def __init__(self, obj: Node, field: str, value: Node, line: int, column: int) -> None:
        super().__init__(line, column)
        self.obj = obj
        self.field = field
        self.value = value


class Field(Node):
    __slots__ = ("obj", "field")

    def __init__(self, obj: Node, field: str, line: int, column: int) -> None:
        super().__init__(line, column)
        self.obj = obj
        self.field = field


class Lambda(Node):
    __slots__ = ("params", "body")

    def __init__(self, params: list[str], body: Node, line: int, column: int) -> None:
        super().__init__(line, column)
        self.params = params
        self.body = body


class ListLit(Node):
    __slots__ = ("items",)

    def __init__(self, items: list[Node], line: int, column: int) -> None:
        super().__init__(line, column)
        self.items = items


class Call(Node):
    __slots__ = ("fn", "args")

    def __init__(self, fn: Node, args: list[Node], line: int, column: int) -> None:
        super().__init__(line, column)
        self.fn = fn
        self.args = args


class TName(Node):
    __slots__ = ("name",)

    def __init__(self, name: str, line: int, column: int) -> None:
        super().__init__(line, column)
        self.name = name


class TList(Node):
    __slots__ = ("inner",)

    def __init__(self, inner: "TName | TList", line: int, column: int) -> None:
        super().__init__(line, column)
        self.inner = inner


class ObjectDecl(Node):
    __slots__ = ("name", "fields", "cell")

    def __init__(self, name: str, fields: list[tuple[str, Node]], cell: Node, line: int,
                 column: int) -> None:
        super().__init__(line, column)
        self.name = name
        self.fields = fields
        self.cell = cell


class OnDecl(Node):
    __slots__ = ("cond", "body")

    def __init__(self, cond: Node, body: Node, line: int, column: int) -> None:
        super().__init__(line, column)
        self.cond = cond
        self.body = body


class ExprStmt(Node):
    __slots__ = ("expr",)

    def __init__(self, expr: Node, line: int, column: int) -> None:
        super().__init__(line, column)
        self.expr = expr


# ---------------------------------------------------------------------------------------------
# Parsing


class _Parser:
    def __init__(self, path: str | None) -> None:
        self.path = path

    def fail(self, message: str, sx: "SAtom | SList") -> AutumnSyntaxError:
        return AutumnSyntaxError(message, line=sx.line, column=sx.column, path=self.path)

    # -- atoms ---------------------------------------------------------------------------------
    def name_of(self, sx, what: str) -> str:
        """The identifier an atom stands for (its first token), for names of things."""
        if not isinstance(sx, SAtom) or sx.is_string:
            raise self.fail(f"expected {what} (an identifier), got {_show(sx)}", sx)
        toks = first_tokens(sx.text, 1)
        if not toks or toks[0].kind != "ident":
            raise self.fail(f"expected {what} (an identifier), got {_show(sx)}", sx)
        name = toks[0].text
        if name in KEYWORDS:
            raise self.fail(f"'{name}' is a reserved word and cannot be used as {what}", sx)
        return name

    def atom(self, sx: SAtom) -> Node:
        toks = first_tokens(sx.text, 2)
        if not toks:
            raise self.fail(f"expected an expression, got the unusable atom {quote(sx.text)}", sx)
        t = toks[0]
        if t.kind == "str":
            return Str(t.text[1:-1], sx.line, sx.column)
        if t.kind == "num":
            if t.value > INT_MAX:
                raise self.fail(f"integer literal {_digits(t.text)} does not fit in 32 bits "
                                f"(the largest is {INT_MAX})", sx)
            return Num(t.value, sx.line, sx.column)
        if t.kind == "ident":
            if t.text == "true":
                return BoolLit(True, sx.line, sx.column)
            if t.text == "false":
                return BoolLit(False, sx.line, sx.column)
            if t.text in KEYWORDS:
                raise self.fail(f"'{t.text}' is a reserved word, not an expression", sx)
            return Var(t.text, sx.line, sx.column)
        if t.kind == "op" and t.text == "-":
            if len(toks) > 1 and toks[1].kind == "num":
                if toks[1].value > INT_MAX:
                    raise self.fail(f"integer literal {_digits(sx.text)} does not fit in 32 "
                                    f"bits (the smallest is -{INT_MAX})", sx)
                return Num(-toks[1].value, sx.line, sx.column)
            raise self.fail(f"{quote(sx.text)}: a minus sign directly before a name is not "
                            "allowed; write (- name)", sx)
        raise self.fail(f"expected an expression, got {quote(sx.text)}", sx)

    # -- expressions -----------------------------------------------------------------------------
    def expr(self, sx) -> Node:
        if isinstance(sx, SAtom):
            return self.atom(sx)
        items = sx.items
        if not items:
            raise self.fail("expected an expression, got an empty list ()", sx)
        h = items[0]
        n = len(items)
        line, col = sx.line, sx.column
        if isinstance(h, SList):
            fn = self.expr(h)
            if not isinstance(fn, (Var, Field)):
                raise self.fail("a list in call position must be a variable or a field access "
                                "such as ((f) x) or ((.. obj render))", h)
            return Call(fn, [self.expr(a) for a in items[1:]], line, col)
        if h.is_string:
            if n == 1:
                return self.atom(h)
            raise self.fail("a string cannot be called", h)
        toks = first_tokens(h.text, 1)
        if not toks:
            raise self.fail(f"expected an operator or a name, got {quote(h.text)}", h)
        t = toks[0]
        if n == 1:
            if t.kind == "ident" and t.text == "list":
                return ListLit([], line, col)
            if t.kind == "ident" and t.text == "let":
                raise self.fail("an empty (let) is not allowed: expected expressions inside", sx)
            return self.atom(h)
        if t.kind == "num":
            raise self.fail(f"a number cannot be called: ({h.text} ...)", h)
        if t.kind == "ident":
            word = t.text
            if word == "let":
                return Let([self.expr(a) for a in items[1:]], line, col)
            if word == "if":
                if n < 6:
                    raise self.fail("expected (if CONDITION then A else B)", sx)
                return If(self.expr(items[1]), self.expr(items[3]), self.expr(items[5]),
                          line, col)
            if word == "initnext":
                if n < 3:
                    raise self.fail("expected (initnext INIT NEXT)", sx)
                return InitNext(self.expr(items[1]), self.expr(items[2]), line, col)
            if word == "fn":
                return self.lam(sx)
            if word == "list":
                return ListLit([self.expr(a) for a in items[1:]], line, col)
            if word in ("and", "or"):
                return self.logic(sx, h.text, word == "or" and h.text == "or")
            if word in KEYWORDS:
                raise self.fail(f"'{word}' cannot start an expression here", h)
            return Call(Var(word, h.line, h.column), [self.expr(a) for a in items[1:]],
                        line, col)
        if t.kind == "str":
            raise self.fail("a string cannot be called", h)
        op = t.text
        if op == ":":
            if n != 3:
                raise self.fail("expected (: NAME TYPE)", sx)
            return Annot(self.name_of(items[1], "an annotated name"), self.type_expr(items[2]),
                         line, col)
        if op == "=":
            if n != 3:
                raise self.fail("expected (= NAME VALUE)", sx)
            target = items[1]
            value = self.expr(items[2])
            if isinstance(target, SList):
                tnode = self.expr(target)
                if isinstance(tnode, Field):
                    return FieldAssign(tnode.obj, tnode.field, value, line, col)
                if isinstance(tnode, Var):
                    return Assign(tnode.name, value, line, col)
                raise self.fail("expected a name or (.. OBJ FIELD) to assign to", target)
            return Assign(self.name_of(target, "the name to assign"), value, line, col)
        if op == "..":
            if n != 3:
                raise self.fail("expected (.. OBJECT FIELD)", sx)
            return Field(self.expr(items[1]), self.field_name(items[2]), line, col)
        if op == "-->":
            return self.lam(sx)
        if op in ("&", "|"):
            return self.logic(sx, h.text, h.text == "|")
        if op in ("-", "+") and n == 2:
            return Unary(op, self.expr(items[1]), line, col)
        if op == "!":
            if n != 2:
                raise self.fail("expected (! VALUE) with exactly one operand", sx)
            return Unary("!", self.expr(items[1]), line, col)
        if op in _BINARY:
            if n != 3:
                raise self.fail(f"expected ({op} A B) with exactly two operands, got {n - 1}",
                                sx)
            return Bin(op, h.text, self.expr(items[1]), self.expr(items[2]), line, col)
        raise self.fail(f"expected an operator or a name, got {quote(h.text)}", h)

    def logic(self, sx: SList, spelling: str, is_or: bool) -> Logic:
        if len(sx.items) != 3:
            raise self.fail(f"expected ({spelling} A B) with exactly two operands", sx)
        return Logic(is_or, spelling, self.expr(sx.items[1]), self.expr(sx.items[2]),
                     sx.line, sx.column)

    def lam(self, sx: SList) -> Lambda:
        items = sx.items
        if len(items) < 3:
            raise self.fail("expected (--> PARAMS BODY)", sx)
        p = items[1]
        if isinstance(p, SAtom):
            params = [self.name_of(p, "a parameter name")]
        else:
            params = [self.name_of(a, "a parameter name") for a in p.items]
        return Lambda(params, self.expr(items[2]), sx.line, sx.column)

    def field_name(self, sx) -> str:
        if isinstance(sx, SAtom) and sx.is_string:
            return sx.text[1:-1]
        return self.name_of(sx, "a field name")

    def type_expr(self, sx) -> "TName | TList":
        if isinstance(sx, SAtom):
            name = self.name_of(sx, "a type name")
            if name in ("Union", "updateObj"):
                raise self.fail(f"'{name}' is not a usable type", sx)
            return TName(name, sx.line, sx.column)
        if (len(sx.items) == 2 and isinstance(sx.items[0], SAtom)
                and sx.items[0].text == "List"):
            return TList(self.type_expr(sx.items[1]), sx.line, sx.column)
        raise self.fail("expected a type: a name such as Number, or (List TYPE)", sx)

    # -- statements ------------------------------------------------------------------------------
    def statement(self, sx) -> Node:
        if isinstance(sx, SAtom):
            raise self.fail(f"expected a statement in parentheses, got {_show(sx)}", sx)
        if not sx.items:
            raise self.fail("expected a statement, got an empty list ()", sx)
        h = sx.items[0]
        if isinstance(h, SList):
            raise self.fail("invalid statement: a statement must start with a name", sx)
        toks = first_tokens(h.text, 1) if not h.is_string else []
        word = toks[0].text if toks and toks[0].kind == "ident" else None
        if word == "object":
            return self.object_decl(sx)
        if word == "on":
            if len(sx.items) < 3:
                raise self.fail("expected (on CONDITION BODY)", sx)
            return OnDecl(self.expr(sx.items[1]), self.expr(sx.items[2]), sx.line, sx.column)
        return ExprStmt(self.expr(sx), sx.line, sx.column)

    def object_decl(self, sx: SList) -> ObjectDecl:
        items = sx.items
        if len(items) < 2 or not isinstance(items[1], SAtom) or items[1].is_string:
            raise self.fail("expected (object NAME FIELD... CELLS)", sx)
        name = items[1].text
        fields: list[tuple[str, Node]] = []
        cell = None
        for item in items[2:]:
            node = self.expr(item)
            if isinstance(node, Annot):
                fields.append((node.name, node.type))
            else:
                cell = node
        if cell is None:
            raise self.fail(f"object {name} needs a cell expression such as "
                            "(Cell 0 0 \"red\")", sx)
        return ObjectDecl(name, fields, cell, sx.line, sx.column)


def _digits(text: str) -> str:
    """A literal as an error shows it: whole if short, else its start and its length."""
    if len(text) <= 24:
        return text
    return f"{text[:12]}...({len(text):,} characters)"


def _show(sx) -> str:
    if isinstance(sx, SAtom):
        return quote(sx.text)
    return "a list"


def parse_statements(text: str, path: str | None = None, *, collect: list | None = None
                     ) -> list[Node]:
    """Parse a whole program (or the stdlib) into statements.

    With ``collect`` given, a statement that fails to parse is recorded there and skipped, so
    that a checker can report every problem; otherwise the first error is raised.
    """
    items = read(text, path)
    parser = _Parser(path)
    if not items:
        raise AutumnSyntaxError("empty program: expected (program STATEMENT...)", line=1,
                                column=1, path=path)
    top = items[0]
    if not isinstance(top, SList):
        raise parser.fail("a program must be a list of statements: (program ...)", top)
    if not top.items:
        raise parser.fail("expected (program STATEMENT...), got ()", top)
    if len(top.items) - 1 > MAX_STATEMENTS:
        first_over = top.items[MAX_STATEMENTS + 1]
        raise AutumnLimitError(f"the program has {len(top.items) - 1:,} statements; the most "
                               f"a program may have is {MAX_STATEMENTS:,}",
                               line=first_over.line, column=first_over.column, path=path)
    out = []
    for sx in top.items[1:]:
        try:
            out.append(parser.statement(sx))
        except AutumnSyntaxError as err:
            if collect is None:
                raise
            collect.append(err)
    return out


parse_program = parse_statements


def parse_expression_text(text: str, path: str | None = None) -> Node:
    """Parse the host's expression syntax: a list body without its outer parentheses (14.2)."""
    items = read(text, path)
    parser = _Parser(path)
    if not items:
        raise AutumnSyntaxError("empty expression", line=1, column=1, path=path)
    if len(items) == 1 and isinstance(items[0], SAtom):
        return parser.atom(items[0])
    return parser.expr(SList(tuple(items), items[0].line, items[0].column))


def parse_expr(sx, path: str | None = None) -> Node:
    return _Parser(path).expr(sx)


# ---------------------------------------------------------------------------------------------
# Structure: keys for equality of cells, the names a cell refers to, and the reference printout


def node_key(node: Node):
    """A hashable key equal for structurally equal trees (spelling and literals included)."""
    k = node._key
    if k is not None:
        return k
    t = type(node)
    if t is Num:
        k = ("N", node.value)
    elif t is Str:
        k = ("S", node.text)
    elif t is BoolLit:
        k = ("B", node.value)
    elif t is Var:
        k = ("V", node.name)
    elif t is Bin:
        k = ("bin", node.spelling, node_key(node.left), node_key(node.right))
    elif t is Logic:
        k = ("log", node.spelling, node_key(node.left), node_key(node.right))
    elif t is Unary:
        k = ("un", node.op, node_key(node.operand))
    elif t is If:
        k = ("if", node_key(node.cond), node_key(node.then), node_key(node.other))
    elif t is Let:
        k = ("let",) + tuple(node_key(e) for e in node.body)
    elif t is ListLit:
        k = ("list",) + tuple(node_key(e) for e in node.items)
    elif t is Call:
        k = ("call", node_key(node.fn)) + tuple(node_key(e) for e in node.args)
    elif t is Field:
        k = ("get", node.field, node_key(node.obj))
    elif t is Lambda:
        k = ("fn", tuple(node.params), node_key(node.body))
    elif t is Assign:
        k = ("set", node.name, node_key(node.value))
    elif t is FieldAssign:
        k = ("setf", node.field, node_key(node.obj), node_key(node.value))
    else:
        k = ("node", id(node))
    node._key = k
    return k


def walk(nodes):
    """Every node of the given trees (statements or expressions), each once, in no set order."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for slot in getattr(type(node), "__slots__", ()):
            child = getattr(node, slot, None)
            if isinstance(child, Node):
                stack.append(child)
            elif isinstance(child, (list, tuple)):
                stack.extend(c for c in child if isinstance(c, Node))


def collect_names(nodes) -> frozenset[str]:
    """Every name a subtree mentions (variables, callees, fields, parameters, assignments)."""
    names: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        t = type(node)
        if t is Var:
            names.add(node.name)
        elif t is Field:
            names.add(node.field)
            stack.append(node.obj)
        elif t is Assign:
            names.add(node.name)
            stack.append(node.value)
        elif t is FieldAssign:
            names.add(node.field)
            stack.extend((node.obj, node.value))
        elif t is Lambda:
            names.update(node.params)
            stack.append(node.body)
        elif t is Annot:
            names.add(node.name)
        elif t in (Bin, Logic):
            stack.extend((node.left, node.right))
        elif t is Unary:
            stack.append(node.operand)
        elif t is If:
            stack.extend((node.cond, node.then, node.other))
        elif t is Let:
            stack.extend(node.body)
        elif t is ListLit:
            stack.extend(node.items)
        elif t is Call:
            stack.append(node.fn)
            stack.extend(node.args)
        elif t is InitNext:
            stack.extend((node.init, node.next))
    return frozenset(names)


def maybe_local_names(statements, *, cells: bool = True) -> set[str]:
    """Names that a scope other than the global table might bind at run time.

    Lambda parameters; names assigned inside a lambda or a let (which create locals when no
    scope has them yet); object fields, ``origin``, ``elems`` and ``e`` (object and render
    scopes); and, unless ``cells`` is false, every name a Cell form mentions (copied into the
    cell's snapshot: ``cell_names``).
    """
    names: set[str] = {"origin", "elems", "e"}
    stack = [(stmt, False) for stmt in statements]
    while stack:
        node, nested = stack.pop()
        t = type(node)
        if t is ObjectDecl:
            names.update(n for n, _ in node.fields)
            stack.append((node.cell, False))
            continue
        if t is OnDecl:
            stack.extend(((node.cond, False), (node.body, False)))
            continue
        if t is ExprStmt:
            stack.append((node.expr, False))
            continue
        if t is Lambda:
            names.update(node.params)
            stack.append((node.body, True))
            continue
        if t is Let:
            stack.extend((e, True) for e in node.body)
            continue
        if t is Assign:
            if nested:
                names.add(node.name)
            stack.append((node.value, nested))
            continue
        for slot in ("left", "right", "operand", "cond", "then", "other", "obj", "value",
                     "init", "next", "fn"):
            child = getattr(node, slot, None)
            if isinstance(child, Node):
                stack.append((child, nested))
        for slot in ("items", "args"):
            children = getattr(node, slot, None)
            if children:
                stack.extend((c, nested) for c in children)
    if cells:
        names |= cell_names(statements)
    return names


def cell_names(statements) -> set[str]:
    """Every name a Cell form mentions: a cell's snapshot copies each (``Runtime.cell_snapshot``)."""
    names: set[str] = set()
    for node in walk(statements):
        if type(node) is Call and type(node.fn) is Var and node.fn.name == "Cell":
            names |= collect_names(node.args)
    return names


def redefinable_names(statements) -> set[str]:
    """Names whose global binding may change after it is first made: every name assigned
    anywhere but by a single top-level definition that is not a state variable (a top-level
    definition runs once, at load), and every object type."""
    counts: dict[str, int] = {}
    types: set[str] = set()
    for node in walk(statements):
        if type(node) is Assign:
            counts[node.name] = counts.get(node.name, 0) + 1
        elif type(node) is ObjectDecl:
            types.add(node.name)
    once = {s.expr.name for s in statements
            if type(s) is ExprStmt and type(s.expr) is Assign
            and type(s.expr.value) is not InitNext}
    return types | {n for n, k in counts.items() if k > 1 or n not in once}


def rebound_names(statements, *, local=None) -> set[str]:
    """Every name a program assigns, binds as a parameter or field, or snapshots in a cell
    (``local``: ``maybe_local_names(statements)`` if the caller has it already)."""
    names = set(maybe_local_names(statements) if local is None else local)
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, Assign):
            names.add(node.name)
        for slot in getattr(type(node), "__slots__", ()):
            child = getattr(node, slot, None)
            if isinstance(child, Node):
                stack.append(child)
            elif isinstance(child, list):
                stack.extend(c for c in child if isinstance(c, Node))
            elif isinstance(child, tuple) and slot == "fields":
                pass
    for stmt in statements:
        if isinstance(stmt, ObjectDecl):
            names.add(stmt.name)
    return names


def print_node(node: Node) -> str:
    """The reference's expression printout, used in printed forms of cells (docs/spec/autumn.md 5.5)."""
    t = type(node)
    if t is Num:
        return f"(NUMBER {node.value})"
    if t is Str:
        return f'(STRING "{node.text}")'
    if t is BoolLit:
        return f"(BOOL {'true' if node.value else 'false'})"
    if t is Var:
        return f"(var {node.name})"
    if t is Call:
        return "(<call> " + " ".join([print_node(node.fn)] + [print_node(a) for a in node.args]) + ")"
    if t is Field:
        return f"(<get>{node.field} {print_node(node.obj)})"
    if t in (Bin, Logic):
        return f"({node.spelling} {print_node(node.left)} {print_node(node.right)})"
    if t is Unary:
        return f"({node.op} {print_node(node.operand)})"
    if t is If:
        return (f"(if {print_node(node.cond)} {print_node(node.then)} "
                f"{print_node(node.other)})")
    if t is Let:
        return "{" + "".join(print_node(e) for e in node.body) + "}"
    if t is ListLit:
        return "[" + "".join(print_node(e) for e in node.items) + "]"
    if t is Lambda:
        return "(lambda (" + "".join(p + " " for p in node.params) + ") " + print_node(node.body) + ")"
    if t is Assign:
        return f"(<assign> {node.name} {print_node(node.value)})"
    if t is FieldAssign:
        return f"(<assign> {node.field} {print_node(node.value)})"
    return "(?)"


# re-exported for convenience of callers that only need to read
__all__ += ["read"]
