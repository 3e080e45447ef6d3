"""A JAX jaxpr as tandem's Program JSON (docs/PROGRAM_JSON.md, schema version 1): the
conversion behind tools/import/export_jax_program.py, the inverse of tools/oracles/program_vs_jax.py's
interpreter (its RULES say how each tandem primitive runs in JAX; RULES here say how each
JAX primitive is written for tandem).

    program, constants, report = convert(jax.make_jaxpr(f)(*args))

`program` is the JSON object, its dead equations eliminated (tools/import/program_dce.py); `constants` the values of closed-over non-scalar constants,
which follow the function's own arguments as extra program inputs; `report` lists the
primitives written that tandem lacks. Such a primitive is written with its JAX name (and
the params that serialise), not refused here: tandem refuses it itself, naming the
equation, its source line and what it supports. What cannot be written at all (a dtype
tandem has no name for, a user-written remat policy) raises Unserialisable, with a hint.
The Scope a program is written into is tools/import/jaxpr_scope.py; remat policies as tandem's
strings, tools/import/jax_remat_policy.py.
"""
import enum
import math
import os
import sys

import numpy as np
from jax._src import core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jax_remat_policy import policy_string  # noqa: E402,F401  (the exporter's tests use it from here)
from jaxpr_scope import (DTYPES, SCHEMA_VERSION, Context, Scope,  # noqa: E402,F401
                         Unserialisable, dtype_name, scalar_value)
import jax_prims  # noqa: E402
from program_dce import eliminate_dead  # noqa: E402
from jaxpr_rules_indexing import gather, scatter_to, window_params  # noqa: E402


# ---- params ------------------------------------------------------------------------------

def ints(v):
    return [int(x) for x in v]


def precision_name(p):
    """dot_general's precision as tandem's string: None is DEFAULT; a (lhs, rhs) pair must agree."""
    if p is None:
        return "DEFAULT"
    if isinstance(p, tuple):
        names = {precision_name(x) for x in p}
        if len(names) != 1:
            raise Unserialisable(f"dot_general precision {p}: tandem takes one precision for both operands",
                                 "pass one lax.Precision (or DotAlgorithmPreset) to the dot")
        return names.pop()
    return p.name


def dot_params(p):
    (lc, rc), (lb, rb) = p["dimension_numbers"]
    out = {"lhs_contracting_dimensions": ints(lc), "rhs_contracting_dimensions": ints(rc),
           "lhs_batch_dimensions": ints(lb), "rhs_batch_dimensions": ints(rb),
           "precision": precision_name(p.get("precision"))}
    if p.get("preferred_element_type") is not None:
        out["preferred_element_type"] = {"dtype": dtype_name(p["preferred_element_type"])}
    return out


def conv_params(p):
    """conv_general_dilated's params: padding flattened to (lo, hi) per spatial dimension, the
    ConvDimensionNumbers as three specs."""
    dn = p["dimension_numbers"]
    out = {"window_strides": ints(p["window_strides"]), "padding": [int(x) for pair in p["padding"] for x in pair],
           "lhs_dilation": ints(p["lhs_dilation"]), "rhs_dilation": ints(p["rhs_dilation"]),
           "lhs_spec": ints(dn.lhs_spec), "rhs_spec": ints(dn.rhs_spec), "out_spec": ints(dn.out_spec),
           "feature_group_count": int(p["feature_group_count"]), "batch_group_count": int(p["batch_group_count"]),
           "precision": precision_name(p.get("precision"))}
    if p.get("preferred_element_type") is not None:
        out["preferred_element_type"] = {"dtype": dtype_name(p["preferred_element_type"])}
    return out


def generic_param(v):
    """A param of a primitive tandem lacks, when the schema has a kind for it; None if not."""
    if isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else {"float": scalar_value(f, "f64")}
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, (tuple, list)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
        return ints(v)
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        try:
            return {"dtype": dtype_name(v)}
        except Unserialisable:
            return None
    return None


# ---- equations ---------------------------------------------------------------------------

def simple(name, params=lambda p: {}):
    """A primitive tandem has under `name`, operands as JAX's, params from `params`."""
    def row(scope, e):
        scope.emit(e, name, [scope.atom(a) for a in e.invars], params(e.params))
    return row


def broadcast_to(scope, e, operands, shape):
    """The operands' atoms, each of rank > 0 whose shape is not `shape` broadcast to it: JAX's
    elementwise primitives take size-1 dims (f32[8,16] + f32[1,16]), tandem's as lax's, equal
    shapes or a rank-0 operand (engine/prims/elementwise.cc)."""
    atoms = []
    for a in operands:
        atom = scope.atom(a)
        dims = tuple(a.aval.shape)
        if dims and dims != tuple(shape):
            lead = len(shape) - len(dims)
            atom = scope.emit_extra(e, "broadcast_in_dim", [atom], {
                "shape": ints(shape), "broadcast_dimensions": list(range(lead, len(shape)))},
                a.aval.dtype, shape)
        atoms.append(atom)
    return atoms


def elementwise(name, params=lambda p: {}):
    """An elementwise primitive, its operands broadcast to its output's shape first."""
    def row(scope, e):
        scope.emit(e, name, broadcast_to(scope, e, e.invars, e.outvars[0].aval.shape), params(e.params))
    return row


def alias(scope, e):
    """The identity on values (copy, device_put): the output is its operand."""
    for out, a in zip(e.outvars, e.invars):
        scope.env[out] = scope.atom(a)


def inline(key):
    """A call (pjit, custom_jvp_call, ...): its primal body, written in place."""
    def row(scope, e):
        body = e.params[key]
        jaxpr, consts = (body.jaxpr, body.consts) if isinstance(body, core.ClosedJaxpr) else (body, ())
        for v, c in zip(jaxpr.constvars, consts):
            scope.env[v] = scope.constant(c)
        for v, a in zip(jaxpr.invars, e.invars):
            scope.env[v] = scope.atom(a)
        outer_source, scope.ctx.calling_source = scope.ctx.calling_source, scope.source(e)
        try:
            write_eqns(scope, jaxpr.eqns)
        finally:
            scope.ctx.calling_source = outer_source
        for out, a in zip(e.outvars, jaxpr.outvars):
            scope.env[out] = scope.atom(a)
    return row


def sub_program(scope, jaxpr, consts=()):
    """A body as a sub-program of its own scope; returns (program, the enclosing scope's atoms
    for the constants it needed, which lead its inputs)."""
    sub = Scope(scope.ctx)
    for v, c in zip(jaxpr.constvars, consts):
        sub.env[v] = sub.constant(c)
    invars = [sub.define(v) for v in jaxpr.invars]
    write_eqns(sub, jaxpr.eqns)
    outvars = [sub.atom(a) for a in jaxpr.outvars]
    outer = [scope.constant(value) for value, _ in sub.consts]
    prog = {"invars": [t for _, t in sub.consts] + invars, "eqns": sub.eqns, "outvars": outvars}
    return {"program": prog}, outer


def prevent_cse(v):
    """jax.checkpoint's prevent_cse: a bool, or one per output (tandem takes one: all of them)."""
    return bool(all(v)) if isinstance(v, (tuple, list)) else bool(v)


def checkpoint(scope, e):
    if e.params["jaxpr"].constvars:
        raise Unserialisable("a checkpoint body with constvars (an open jaxpr's constants have no values here)",
                             "pass the constant to the checkpointed function as an argument")
    body, outer = sub_program(scope, e.params["jaxpr"])
    scope.emit(e, "checkpoint", outer + [scope.atom(a) for a in e.invars],
               {"body": body, "policy": policy_string(e.params["policy"]),
                "prevent_cse": prevent_cse(e.params["prevent_cse"])})


def scan(scope, e):
    p = e.params
    body, outer = sub_program(scope, p["jaxpr"].jaxpr, p["jaxpr"].consts)
    unroll = p.get("unroll", 1)
    unroll = (int(p["length"]) if unroll else 1) if isinstance(unroll, bool) else int(unroll)
    scope.emit(e, "scan", outer + [scope.atom(a) for a in e.invars],
               {"body": body, "length": int(p["length"]), "num_consts": len(outer) + int(p["num_consts"]),
                "num_carry": int(p["num_carry"]), "reverse": bool(p["reverse"]), "unroll": unroll})


def while_loop(scope, e):
    """lax.while_loop's primitive: each of cond and body a sub-program whose constants join its
    consts (cond's lead the operands, then body's, then the carry), JAX's nconsts convention."""
    p = e.params
    nc, nb = int(p["cond_nconsts"]), int(p["body_nconsts"])
    cond, cond_outer = sub_program(scope, p["cond_jaxpr"].jaxpr, p["cond_jaxpr"].consts)
    body, body_outer = sub_program(scope, p["body_jaxpr"].jaxpr, p["body_jaxpr"].consts)
    ins = [scope.atom(a) for a in e.invars]
    scope.emit(e, "while", cond_outer + ins[:nc] + body_outer + ins[nc:nc + nb] + ins[nc + nb:],
               {"cond": cond, "body": body, "cond_nconsts": len(cond_outer) + nc,
                "body_nconsts": len(body_outer) + nb})


def cond(scope, e):
    """lax.cond / lax.switch (cond_p: index, operands; one closed jaxpr per branch) as tandem's
    cond with params branch_0 ... branch_{n-1}. Constants a branch needed lead the operands,
    every branch's in turn; each branch takes them all (another branch's as unused inputs)."""
    subs = [sub_program(scope, b.jaxpr, b.consts) for b in e.params["branches"]]
    ins = [scope.atom(a) for a in e.invars]
    outer = [a for _, o in subs for a in o]
    params = {}
    for i, (body, own) in enumerate(subs):
        prog = body["program"]
        n_own, before = len(own), sum(len(o) for _, o in subs[:i])
        own_vars, rest = prog["invars"][:n_own], prog["invars"][n_own:]
        unused = [dict(v, id=scope.ctx.new_id()) for j, (b, o) in enumerate(subs) if j != i
                  for v in b["program"]["invars"][:len(o)]]
        prog["invars"] = unused[:before] + own_vars + unused[before:] + rest
        params[f"branch_{i}"] = body
    scope.emit(e, "cond", ins[:1] + outer + ins[1:], params)


def select_n(scope, e):
    # select_n(pred, on_false, on_true); tandem's select is lax.select(pred, on_true, on_false).
    if len(e.invars) != 3:
        return unknown(scope, e)
    c, f, t = broadcast_to(scope, e, e.invars, e.outvars[0].aval.shape)
    scope.emit(e, "select", [c, t, f], {})


def to_shape(scope, e):
    """squeeze (and reshape without `dimensions`) as tandem's reshape to the output's shape."""
    if e.params.get("dimensions") is not None and e.primitive.name == "reshape":
        raise Unserialisable("reshape with `dimensions` (a transpose first): tandem's reshape has none",
                             "transpose explicitly (jnp.transpose), then reshape")
    scope.emit(e, "reshape", [scope.atom(e.invars[0])], {"new_sizes": ints(e.outvars[0].aval.shape)})


def split(scope, e):
    """split (jnp.split's primitive) as one slice per piece along its axis."""
    x, axis = scope.atom(e.invars[0]), int(e.params["axis"])
    shape, start = ints(e.invars[0].aval.shape), 0
    for out, size in zip(e.outvars, ints(e.params["sizes"])):
        lo, hi = [0] * len(shape), list(shape)
        lo[axis], hi[axis] = start, start + size
        scope.env[out] = scope.emit_extra(e, "slice", [x], {"start_indices": lo, "limit_indices": hi},
                                          out.aval.dtype, out.aval.shape)
        start += size


def stack(scope, e):
    """stack (jnp.stack's primitive): each operand reshaped to a size-1 axis, then concatenated."""
    axis = int(e.params["axis"])
    pieces = []
    for a in e.invars:
        shape = ints(a.aval.shape)
        shape.insert(axis, 1)
        pieces.append(scope.emit_extra(e, "reshape", [scope.atom(a)], {"new_sizes": shape}, a.aval.dtype, shape))
    scope.emit(e, "concatenate", pieces, {"dimension": axis})


def unstack(scope, e):
    """unstack (jnp.unstack's primitive): a size-1 slice per output along its axis, reshaped away."""
    x, axis = scope.atom(e.invars[0]), int(e.params["axis"])
    shape = ints(e.invars[0].aval.shape)
    for k, out in enumerate(e.outvars):
        lo, hi = [0] * len(shape), list(shape)
        lo[axis], hi[axis] = k, k + 1
        piece_shape = hi[:axis] + [1] + hi[axis + 1:]
        piece = scope.emit_extra(e, "slice", [x], {"start_indices": lo, "limit_indices": hi},
                                 out.aval.dtype, piece_shape)
        scope.env[out] = scope.emit_extra(e, "reshape", [piece], {"new_sizes": ints(out.aval.shape)},
                                          out.aval.dtype, out.aval.shape)


def unknown(scope, e):
    name = e.primitive.name
    params = {k: v for k, v in ((k, generic_param(v)) for k, v in sorted(e.params.items())) if v is not None}
    scope.emit(e, name, [scope.atom(a) for a in e.invars], params)
    scope.ctx.unsupported.setdefault(name, scope.source(e) or "unknown source")


# JAX primitive name -> row(scope, eqn). One row per JAX primitive; one not here is written
# by `unknown` (its own name, for tandem to refuse).
RULES = {
    **{n: simple(n) for n in jax_prims.UNARY},  # tools/import/jax_prims.py: same name in JAX and tandem
    **{n: elementwise(n) for n in jax_prims.BINARY},
    "add_any": elementwise("add"),
    **{d: elementwise("compare", lambda p, d=d: {"direction": d}) for d in ("eq", "ne", "lt", "le", "gt", "ge")},
    "integer_pow": simple("integer_pow", lambda p: {"y": int(p["y"])}),
    "square": simple("integer_pow", lambda p: {"y": 2}),
    "select_n": select_n,
    "convert_element_type": simple("convert_element_type",
                                   lambda p: {"new_dtype": {"dtype": dtype_name(p["new_dtype"])}}),
    "broadcast_in_dim": simple("broadcast_in_dim", lambda p: {
        "shape": ints(p["shape"]), "broadcast_dimensions": ints(p["broadcast_dimensions"])}),
    "reshape": to_shape,
    "squeeze": to_shape,
    "transpose": simple("transpose", lambda p: {"permutation": ints(p["permutation"])}),
    "slice": simple("slice", lambda p: {
        "start_indices": ints(p["start_indices"]), "limit_indices": ints(p["limit_indices"]),
        **({"strides": ints(p["strides"])} if p.get("strides") else {})}),
    "split": split,
    "stack": stack,
    "unstack": unstack,
    "dynamic_slice": simple("dynamic_slice", lambda p: {"slice_sizes": ints(p["slice_sizes"])}),
    "dynamic_update_slice": simple("dynamic_update_slice"),
    "concatenate": simple("concatenate", lambda p: {"dimension": int(p["dimension"])}),
    "iota": simple("iota", lambda p: {"dtype": {"dtype": dtype_name(p["dtype"])}, "shape": ints(p["shape"]),
                                      "dimension": int(p["dimension"])}),
    **{n: simple(n, lambda p: {"axes": ints(p["axes"])}) for n in jax_prims.REDUCTIONS},
    **{n: simple(n, lambda p: {"axes": ints(p["axes"]), "index_dtype": {"dtype": dtype_name(p["index_dtype"])}})
       for n in jax_prims.ARGS},
    "round": simple("round", lambda p: {"rounding_method": jax_prims.rounding_name(p["rounding_method"])}),
    "is_finite": simple("is_finite"),
    "rev": simple("rev", lambda p: {"dimensions": ints(p["dimensions"])}),
    "pad": simple("pad", lambda p: {"padding_config": [int(v) for t in p["padding_config"] for v in t]}),
    "cumsum": simple("cumsum", lambda p: {"axis": int(p["axis"]), "reverse": bool(p["reverse"])}),
    "dot_general": simple("dot_general", dot_params),
    "conv_general_dilated": simple("conv_general_dilated", conv_params),
    "gather": gather,
    "scatter-add": scatter_to("scatter_add"),
    "scatter": scatter_to("scatter"),
    "reduce_window_max": simple("reduce_window_max", window_params),
    "reduce_window_sum": simple("reduce_window_sum", window_params),
    "sort": simple("sort", lambda p: {"dimension": int(p["dimension"]), "is_stable": bool(p["is_stable"]),
                                      "num_keys": int(p["num_keys"])}),
    "name": simple("checkpoint_name", lambda p: {"name": str(p["name"])}),
    "checkpoint": checkpoint,
    "remat2": checkpoint,  # the same primitive, under its older name
    "scan": scan,
    "while": while_loop,
    "cond": cond,
    "copy": alias,
    "copy_p": alias,
    "device_put": alias,
    "pjit": inline("jaxpr"),
    "jit": inline("jaxpr"),
    "closed_call": inline("call_jaxpr"),
    "core_call": inline("call_jaxpr"),
    "custom_jvp_call": inline("call_jaxpr"),
    "custom_vjp_call": inline("call_jaxpr"),
    "custom_vjp_call_jaxpr": inline("fun_jaxpr"),
}


def write_eqns(scope, eqns):
    for e in eqns:
        RULES.get(e.primitive.name, unknown)(scope, e)


def convert(closed):
    """(program JSON, constant values, {unsupported primitive: source}) of a ClosedJaxpr. The
    function's arguments are the first program inputs, its constants the rest."""
    ctx = Context()
    top = Scope(ctx)
    invars = [top.define(v) for v in closed.jaxpr.invars]
    for v, c in zip(closed.jaxpr.constvars, closed.consts):
        top.env[v] = top.constant(c)
    write_eqns(top, closed.jaxpr.eqns)
    outvars = [top.atom(a) for a in closed.jaxpr.outvars]
    program = {"schema_version": SCHEMA_VERSION, "invars": invars + [t for _, t in top.consts],
               "eqns": top.eqns, "outvars": outvars}
    eliminate_dead(program)  # what only discarded results need is not written (program_dce.py)
    used = {e["primitive"] for e in all_eqns(program)}
    return program, [v for v, _ in top.consts], {p: s for p, s in ctx.unsupported.items() if p in used}


def all_eqns(program):
    """Every equation of a program JSON, sub-programs (scan and checkpoint bodies) included."""
    for e in program["eqns"]:
        yield e
        for v in e.get("params", {}).values():
            if isinstance(v, dict) and "program" in v:
                yield from all_eqns(v["program"])


def checkpoint_names(program):
    """Every name checkpoint_name gives in a program, sub-programs included, sorted."""
    return sorted({e["params"]["name"] for e in all_eqns(program) if e["primitive"] == "checkpoint_name"})


def policies_in(program):
    """Every checkpoint policy string written in a program, sub-programs included."""
    return [e["params"]["policy"] for e in all_eqns(program) if e["primitive"] == "checkpoint"]
