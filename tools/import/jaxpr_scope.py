"""The state of one jaxpr -> Program JSON conversion (tools/import/jaxpr_to_program.py): the schema's
names (dtypes), how an atom, a literal and a source line are written,
and the Scope a program or sub-program is written into (ids, equations, the constants it needs).
"""
import math
import os

import numpy as np
from jax._src import core, source_info_util

SCHEMA_VERSION = 1
# numpy dtype name -> tandem's (docs/PROGRAM_JSON.md "dtype names").
DTYPES = {"float64": "f64", "float32": "f32", "bfloat16": "bf16", "float16": "f16", "int32": "i32", "bool": "bool"}


class Unserialisable(Exception):
    """Something of the jaxpr that Program JSON cannot say; .hint says what to do."""

    def __init__(self, what, hint):
        super().__init__(what)
        self.hint = hint


def dtype_name(dtype):
    name = np.dtype(dtype).name
    if name not in DTYPES:
        raise Unserialisable(f"dtype {name} has no tandem name (tandem has {', '.join(DTYPES.values())})",
                             "cast to one of those before the function, or trace without jax_enable_x64 "
                             "(64-bit integers come from it)")
    return DTYPES[name]


def typed(var_id, aval):
    return {"id": var_id, "dtype": dtype_name(aval.dtype), "shape": [int(d) for d in aval.shape]}


def scalar_value(v, dtype):
    """A scalar as the schema writes it: bool 0/1, an int, a float, or "nan"/"inf"/"-inf"."""
    v = np.asarray(v).item()
    if dtype in ("bool", "i32"):
        return int(v)
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def source_of(eqn, fallback=None):
    """"file.py:LINE" of the user's frame that made the equation, else `fallback`."""
    tb = getattr(eqn.source_info, "traceback", None)
    frame = source_info_util.user_frame(tb) if tb is not None else None
    if frame is None:
        return fallback
    path = os.path.relpath(frame.file_name)
    return f"{path if not path.startswith('..') else os.path.basename(path)}:{frame.start_line}"


class Context:
    """What one conversion shares across scopes: the id counter (ids never repeat, so no
    sub-program shares an id with its enclosing program) and what it found."""

    def __init__(self):
        self.next_id = 0
        self.unsupported = {}  # primitive -> first source seen
        # The source of the call being inlined: an equation of a library's jitted body
        # (jnp.cumprod's) carries no user frame, and the user's line that called it is the one to name.
        self.calling_source = None
        self.notes = []

    def new_id(self):
        self.next_id += 1
        return self.next_id - 1


class Scope:
    """One program or sub-program being written: jax Var -> atom JSON, its equations, and the
    constants it needed (a sub-program sees only its own inputs, so each constant becomes an
    extra input here and an operand of the enclosing equation, up to the top program)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.env, self.eqns = {}, []
        self.consts = []  # (value, typed invar) in the order first needed
        self._const_ids = {}

    def source(self, eqn):
        return source_of(eqn, self.ctx.calling_source)

    def define(self, var):
        t = typed(self.ctx.new_id(), var.aval)
        self.env[var] = {"var": t["id"]}
        return t

    def atom(self, a):
        if isinstance(a, core.Literal):
            dt = dtype_name(a.aval.dtype)
            return {"literal": scalar_value(a.val, dt), "dtype": dt}
        return self.env[a]

    def constant(self, original):
        value = np.asarray(original)
        dt = dtype_name(value.dtype)
        if value.ndim == 0:
            return {"literal": scalar_value(value, dt), "dtype": dt}
        key = id(original)
        if key not in self._const_ids:
            t = {"id": self.ctx.new_id(), "dtype": dt, "shape": list(value.shape)}
            self.consts.append((value, t))
            self._const_ids[key] = t["id"]
        return {"var": self._const_ids[key]}

    def append(self, eqn, primitive, ins, outs, params):
        # params always written, {} too: tools/oracles/program_vs_jax.py reads e["params"] as tandem writes it.
        e = {"primitive": primitive, "in": ins, "out": outs, "params": params}
        src = self.source(eqn)
        if src:
            e["source"] = src
        self.eqns.append(e)

    def emit(self, eqn, primitive, ins, params):
        """The equation written for `eqn`, with its outputs."""
        self.append(eqn, primitive, ins, [self.define(v) for v in eqn.outvars], params)

    def emit_extra(self, eqn, primitive, ins, params, dtype, shape):
        """An equation the jaxpr does not have (an explicit broadcast, a piece of a split),
        named by `eqn`'s source; returns its output's atom."""
        t = {"id": self.ctx.new_id(), "dtype": dtype_name(dtype), "shape": [int(d) for d in shape]}
        self.append(eqn, primitive, ins, [t], params)
        return {"var": t["id"]}
