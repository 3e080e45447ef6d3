# A JSON Schema validator compiled once from reports/record.schema.json into nested closures, for the few keywords that
# schema uses. jsonschema's generic validator costs ~2.5 ms per record (a 43k-record nightly file took minutes); the
# closures cost ~0.03 ms. A keyword the table below does not know fails at compile time, so the schema can never hold a
# rule this skips; reports/tests/test_schema_check.py holds the two validators to the same verdicts.
import reprlib

_short = reprlib.Repr()
_short.maxlevel, _short.maxstring, _short.maxother = 3, 60, 60  # bounded: a deep value never recurses


class Invalid(Exception):
    """The first violation: `path` (keys and indices from the document's root) and `message`."""

    def __init__(self, path, message):
        super().__init__(message)
        self.path, self.message = path, message


def short(value):
    return _short.repr(value)


TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    # as jsonschema: 2.0 is an integer
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}
IGNORED = {"$schema", "$id", "$defs", "title", "description", "format"}  # format: not asserted, as jsonschema's default


def same(a, b):
    """JSON equality: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def kw_type(s, c):
    names = [s] if isinstance(s, str) else list(s)
    tests = [TYPES[n] for n in names]

    def check(v, path):
        if not any(t(v) for t in tests):
            raise Invalid(path, f"{short(v)} is not of type {', '.join(repr(n) for n in names)}")
    return check


def kw_enum(values, c):
    strings = frozenset(v for v in values if isinstance(v, str))
    others = [v for v in values if not isinstance(v, str)]

    def check(v, path):
        if isinstance(v, str) and v in strings:
            return
        if not any(same(v, o) for o in others):
            raise Invalid(path, f"{short(v)} is not one of {short(values)}")
    return check


def kw_const(value, c):
    def check(v, path):
        if not same(v, value):
            raise Invalid(path, f"{short(value)} was expected")
    return check


def kw_required(names, c):
    def check(v, path):
        if isinstance(v, dict):
            for n in names:
                if n not in v:
                    raise Invalid(path, f"{n!r} is a required property")
    return check


def kw_properties(props, c):
    compiled = [(k, c.compile(s)) for k, s in props.items()]

    def check(v, path):
        if isinstance(v, dict):
            for k, f in compiled:
                if k in v:
                    f(v[k], path + [k])
    return check


def kw_additional(schema, c, props=()):
    f = c.compile(schema)

    def check(v, path):
        if isinstance(v, dict):
            for k, x in v.items():
                if k not in props:
                    f(x, path + [k])
    return check


def kw_items(schema, c):
    f = c.compile(schema)

    def check(v, path):
        if isinstance(v, list):
            for i, x in enumerate(v):
                f(x, path + [i])
    return check


def bound(name, ok, words):
    def kw(limit, c):
        def check(v, path):
            if TYPES["number"](v) and not ok(v, limit):
                raise Invalid(path, f"{short(v)} is {words} {limit}")
        return check
    return kw


def length_bound(kind, violates, message):
    """A keyword bounding len(v) for values of `kind`: violates(len(v), n) true is invalid."""
    def kw(n, c):
        def check(v, path):
            if isinstance(v, kind) and violates(len(v), n):
                raise Invalid(path, message(short(v), n))
        return check
    return kw


kw_min_length = length_bound(str, lambda k, n: k < n,
                             lambda v, n: f"{v} should be non-empty" if n == 1 else f"{v} is shorter than {n}")
kw_min_items = length_bound(list, lambda k, n: k < n,
                            lambda v, n: f"{v} should be non-empty" if n == 1 else f"{v} has fewer than {n} items")
kw_max_items = length_bound(list, lambda k, n: k > n, lambda v, n: f"{v} has more than {n} items")


def kw_any_of(schemas, c):
    fs = [c.compile(s) for s in schemas]

    def check(v, path):
        for f in fs:
            try:
                f(v, path)
                return
            except Invalid:
                pass
        raise Invalid(path, f"{short(v)} is not valid under any of the given schemas")
    return check


def kw_ref(ref, c):
    if not ref.startswith("#/$defs/"):
        raise ValueError(f"unsupported $ref {ref!r}")
    name = ref[len("#/$defs/"):]
    return lambda v, path: c.defs[name](v, path)  # late-bound: a definition may refer to itself


KEYWORDS = {
    "type": kw_type, "enum": kw_enum, "const": kw_const, "required": kw_required, "properties": kw_properties,
    "items": kw_items, "minLength": kw_min_length, "minItems": kw_min_items, "maxItems": kw_max_items,
    "anyOf": kw_any_of, "$ref": kw_ref,
    "minimum": bound("minimum", lambda v, m: v >= m, "less than the minimum of"),
    "exclusiveMinimum": bound("exclusiveMinimum", lambda v, m: v > m, "less than or equal to the minimum of"),
}


class Compiler:
    def __init__(self, root):
        self.defs = {}
        for name, s in (root.get("$defs") or {}).items():
            self.defs[name] = self.compile(s)
        self.root = self.compile(root)

    def compile(self, s):
        checks = []
        for k, v in s.items():
            if k in KEYWORDS:
                checks.append(KEYWORDS[k](v, self))
            elif k == "additionalProperties":
                checks.append(kw_additional(v, self, frozenset(s.get("properties") or ())))
            elif k == "if":
                checks.append(self.if_then(v, s.get("then"), s.get("else")))
            elif k not in IGNORED and k not in ("then", "else"):
                raise ValueError(f"record.schema.json uses {k!r}, which reports/schema_check.py does not check")
        if len(checks) == 1:
            return checks[0]

        def check(v, path):
            for f in checks:
                f(v, path)
        return check

    def if_then(self, cond, then, other):
        fc = self.compile(cond)
        ft, fe = (self.compile(x) if x is not None else None for x in (then, other))

        def check(v, path):
            try:
                fc(v, path)
                holds = True
            except Invalid:
                holds = False
            f = ft if holds else fe
            if f is not None:
                f(v, path)
        return check


def compile_schema(schema):
    """A function (document) -> None that raises Invalid at the first violation of `schema`."""
    root = Compiler(schema).root
    return lambda doc: root(doc, [])
