#!/usr/bin/env python3
"""tandem's Program cases against JAX itself. Reads what `tandem dump-programs DIR` wrote
(runners/cli/dump_programs_command.cc): per oracle item a program.json (engine/ir/program_json.h),
its inputs, the output cotangents of a differentiating case and tandem's CPU results. Each
program is interpreted with JAX's own primitives (jax.lax.* per equation, lax.scan for scan,
jax.checkpoint with the matching jax.checkpoint_policies for checkpoint, checkpoint_name from
jax.ad_checkpoint); a differentiating item is differentiated by jax.vjp of the FORWARD program
(not tandem's VJP program) and a vmap item batched by jax.vmap (not tandem's vmap pass).

The bound comes from the data, as in tools/oracles/lstm_vs_jax.py: JAX runs every item twice, at the
program's dtypes and with every floating type widened to f64 (jax_enable_x64). A floating
output passes when tandem's largest error against JAX-f64 is at most 4x JAX's own error at the
program's dtypes, or at most 16 ulps (of the output's dtype: f32, bf16, f16, f64) of the
largest magnitude. Integer and bool outputs must equal JAX's exactly; NaNs must sit where
JAX's are.

    tools/oracles/program_vs_jax.py DUMPDIR [--filter REGEX]
Prints one line per item output and a summary; exits 0 when all agree, 1 when one does not
or a primitive is unknown to the interpreter (never skipped silently), 77 when JAX is not
installed. Out of scope, listed as such: the collectives (psum ... axis_index; see
docs/JAX_ORACLE.md "Collectives") and the fused LSTM (lstm_fwd / lstm_bwd; tools/oracles/lstm_vs_jax.py).
"""
import json
import os
import re
import sys

try:  # numpy too: a Python without it is a skip (77) naming what is missing, not a traceback
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.ad_checkpoint import checkpoint_name
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from jax_common import dtype_of, headroom_bound, is_float, narrowed_f64_error  # the oracles' dtypes and bound
    import jax_indexing  # gather, scatter_add and sort as lax calls
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "import"))
    import jax_prims  # tools/import/jax_prims.py: the unary and binary ops' rows
    from program_vs_jax_contractions import eval_conv, eval_dot  # dot_general, conv_general_dilated
    import program_vs_jax_control as control  # scan, while, cond, checkpoint
    from program_vs_jax_control import policy_of  # noqa: F401  (the exporter's tests use it from here)
except ImportError as missing:
    print(f"skip: {missing} (for {sys.executable})", file=sys.stderr)
    sys.exit(77)

jax.config.update("jax_enable_x64", True)
SCHEMA_VERSION = 1  # program.json's (docs/PROGRAM_JSON.md); another is read by no rule here
OUT_OF_SCOPE = {
    **{p: "collective: checked by the collectives oracle (docs/JAX_ORACLE.md, Collectives)"
       for p in ("psum", "pmean", "pmax", "pmin", "all_gather", "all_to_all", "psum_scatter",
                 "ppermute", "axis_index")},
    "lstm_fwd": "fused LSTM: checked by tools/oracles/lstm_vs_jax.py against jax.experimental.rnn",
    "lstm_bwd": "fused LSTM: checked by tools/oracles/lstm_vs_jax.py against jax.experimental.rnn",
}
# DotAlgorithm presets JAX's CPU backend runs as their names say. The others XLA:CPU either
# rejects ("not supported by dot_general on CPU") or runs without narrowing the inputs (BF16_BF16_F32
# on f32 inputs gives plain f32 results), so JAX on CPU is no oracle for them.
CPU_FAITHFUL_PRESETS = {"DEFAULT", "HIGH", "HIGHEST", "F32_F32_F32", "F64_F64_F64"}
PRESET_SCOPE = ("DotAlgorithm preset {}: XLA:CPU rejects it or does not emulate its input rounding; "
                "checked by the dot_general oracle (docs/JAX_ORACLE.md, dot_general)")
# Disagreements found and understood (docs/JAX_ORACLE.md, Programs): printed as KNOWN, not
# failures; one that starts to agree is printed as XPASS so the table can shrink.
KNOWN = {
    # r"^case/name \[label\] result 0$": "why tandem differs here",
}


class OutOfScope(Exception):
    pass


class UnknownPrimitive(Exception):
    pass


def number(v):
    return float(v) if isinstance(v, str) else v


def same_rank(a, b):
    """tandem's binary ops broadcast a rank-0 operand; lax's want equal shapes."""
    if a.shape == b.shape:
        return a, b
    if a.ndim == 0:
        return lax.broadcast_in_dim(a, b.shape, ()), b
    if b.ndim == 0:
        return a, lax.broadcast_in_dim(b, a.shape, ())
    raise ValueError(f"binary operands {a.shape} and {b.shape}")


def binary(fn):
    return lambda x, y, p, w: [fn(*same_rank(x, y))]


COMPARE = {"eq": lax.eq, "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge}
# name -> fn(*operands, params, wide) -> list of outputs. One row per tandem primitive.
RULES = {
    **{k: (lambda f: lambda x, p, w: [f(x)])(f) for k, f in jax_prims.UNARY.items()},
    **{k: binary(f) for k, f in jax_prims.BINARY.items()},
    "integer_pow": lambda x, p, w: [lax.integer_pow(x, p["y"])],
    "compare": lambda x, y, p, w: [COMPARE[p["direction"]](*same_rank(x, y))],
    "select": lambda c, t, f, p, w: [lax.select(c, t, f)],
    "convert_element_type": lambda x, p, w: [lax.convert_element_type(x, dtype_of(p["new_dtype"]["dtype"], w))],
    "broadcast_in_dim": lambda x, p, w: [lax.broadcast_in_dim(x, p["shape"], p["broadcast_dimensions"])],
    "reshape": lambda x, p, w: [lax.reshape(x, p["new_sizes"])],
    "transpose": lambda x, p, w: [lax.transpose(x, p["permutation"])],
    "slice": lambda x, p, w: [lax.slice(x, p["start_indices"], p["limit_indices"], p.get("strides") or None)],
    # The primitives themselves: they clamp every start index into range. lax.dynamic_slice (the
    # API) first wraps a negative index from the end, in equations of its own before the primitive.
    "dynamic_slice": lambda x, *s, p, w: [lax.dynamic_slice_p.bind(x, *s, slice_sizes=tuple(p["slice_sizes"]))],
    "dynamic_update_slice": lambda x, u, *s, p, w: [lax.dynamic_update_slice_p.bind(x, u, *s)],
    # tandem's concatenate and reductions take negative axes as jnp.concatenate / jnp.sum do;
    # lax's primitives take them canonical, so they are normalized here as jnp does.
    "concatenate": lambda *xs, p, w: [lax.concatenate(xs, p["dimension"] % xs[0].ndim)],
    "iota": lambda p, w: [lax.broadcasted_iota(dtype_of(p["dtype"]["dtype"], w), p["shape"], p["dimension"])],
    **{k: (lambda f: lambda x, p, w: [f(x, [a % x.ndim for a in p["axes"]])])(f) for k, f in jax_prims.REDUCTIONS.items()},
    **{k: (lambda f: lambda x, p, w: [f(x, p["axes"][0] % x.ndim, np.int32)])(f) for k, f in jax_prims.ARGS.items()},
    "round": lambda x, p, w: [lax.round(x, jax_prims.rounding_method(p["rounding_method"]))],
    "is_finite": lambda x, p, w: [lax.is_finite(x)],
    "rev": lambda x, p, w: [lax.rev(x, [a % x.ndim for a in p["dimensions"]])],
    "pad": lambda x, v, p, w: [lax.pad(x, v, list(zip(*[iter(p["padding_config"])] * 3)))],  # flat triples
    "cumsum": lambda x, p, w: [lax.cumsum(x, p["axis"] % x.ndim, p.get("reverse", False))],
    "dot_general": eval_dot,
    "conv_general_dilated": eval_conv,
    "gather": jax_indexing.eval_gather,
    "scatter_add": jax_indexing.eval_scatter_add,
    "scatter": jax_indexing.eval_scatter,
    "reduce_window_max": jax_indexing.eval_reduce_window_max,
    "reduce_window_sum": jax_indexing.eval_reduce_window_sum,
    "sort": jax_indexing.eval_sort,
    "scan": lambda *a, p, w: control.eval_scan(a, p, w, interpret),
    "while": lambda *a, p, w: control.eval_while(a, p, w, interpret),
    "cond": lambda *a, p, w: control.eval_cond(a, p, w, interpret),
    "checkpoint": lambda *a, p, w: control.eval_checkpoint(a, p, w, interpret),
    "checkpoint_name": lambda x, p, w: [checkpoint_name(x, p["name"])],
    # A transfer between memory kinds (engine/prims/device_put.h): the identity on values.
    "device_put": lambda x, p, w: [x],
}


def prims_in(prog, found):
    for e in prog["eqns"]:
        found.add(e["primitive"])
        for v in e["params"].values():
            if isinstance(v, dict) and "program" in v:
                prims_in(v["program"], found)
    return found


def dot_presets(prog, found):
    for e in prog["eqns"]:
        if e["primitive"] == "dot_general":
            found.add(e["params"].get("precision", "DEFAULT"))
        for v in e["params"].values():
            if isinstance(v, dict) and "program" in v:
                dot_presets(v["program"], found)
    return found


def interpret(prog, args, wide):
    env = {v["id"]: a for v, a in zip(prog["invars"], args)}

    def read(atom):
        if "var" in atom:
            return env[atom["var"]]
        return jnp.asarray(number(atom["literal"]), dtype_of(atom["dtype"], wide))

    for e in prog["eqns"]:
        name = e["primitive"]
        ins = [read(a) for a in e["in"]]
        outs = RULES[name](*ins, p=e["params"], w=wide)
        for v, o in zip(e["out"], outs):
            want = (tuple(v["shape"]), np.dtype(dtype_of(v["dtype"], wide)))
            if (tuple(o.shape), o.dtype) != want:
                raise AssertionError(f"{name}: JAX gives {o.dtype}{list(o.shape)}, tandem's type is {want}")
            env[v["id"]] = o
    return [read(a) for a in prog["outvars"]]


def of_wrt(prog, args, wrt, wide):
    """The program as a function of its inputs at positions wrt (what jax.vjp differentiates), the
    others fixed at args; it returns the tuple of the program's outputs."""
    def f(*diff):
        full = list(args)
        for i, d in zip(wrt, diff):
            full[i] = d
        return tuple(interpret(prog, full, wide))
    return f


def run_jax(prog, meta, arrays, cts, wide):
    """The item's results in JAX: outputs, then (differentiated) the wrt inputs' cotangents."""
    n_in = len(arrays)
    wrt = [i for i, w in enumerate(meta.get("wrt", [])) if w]

    def g(*args):
        primal, ct = list(args[:n_in]), list(args[n_in:])
        if not meta["differentiate"]:
            return tuple(interpret(prog, primal, wide))
        outs, pullback = jax.vjp(of_wrt(prog, primal, wrt, wide), *[primal[i] for i in wrt])
        return tuple(outs) + tuple(pullback(tuple(ct)))

    if "vmap" in meta:
        vm = meta["vmap"]
        g = jax.vmap(g, in_axes=tuple(vm["in_axes"]), out_axes=tuple(vm["out_axes"]), axis_size=vm["size"])
    cast = lambda a, d: jnp.asarray(a, dtype_of(d, wide))
    args = [cast(a, d) for a, d in zip(arrays, meta["inputs"])] + [cast(a, d) for a, d in zip(cts, meta["output_cts"])]
    return [np.asarray(r) for r in jax.jit(g)(*args)]


def compare(tandem, j_native, j_wide, dtype, j_narrow=None):
    """(ok, text, ratio): ratio is tandem's error over the bound (<= 1 passes). `j_narrow`, the
    f32 run, estimates an f64 result's JAX error (jax_common.narrowed_f64_error)."""
    t = tandem.astype(np.float64)
    a, b = np.asarray(j_native, np.float64), np.asarray(j_wide, np.float64)
    if t.shape != b.shape:
        return False, f"shape {t.shape} vs JAX {b.shape}", float("inf")
    nan_t, nan_j = np.isnan(t), np.isnan(b)
    if (nan_t != nan_j).any():
        return False, f"NaN at {int((nan_t != nan_j).sum())} positions where JAX has none (or the reverse)", float("inf")
    t, a, b = (np.where(nan_j, 0, x) for x in (t, a, b))
    if not is_float(dtype):
        bad = int((t != b).sum())
        return bad == 0, f"exact: {bad} of {t.size} differ", 0.0 if bad == 0 else float("inf")
    # Infinities must match; they are then left out of the error.
    inf_bad = int((np.isinf(t) != np.isinf(b)).sum() + (np.isinf(b) & (t != b)).sum())
    if inf_bad:
        return False, f"{inf_bad} infinities differ", float("inf")
    fin = ~np.isinf(b)
    err_t = float(np.max(np.abs(t - b)[fin], initial=0.0))
    err_j = float(np.max(np.abs(a - b)[fin], initial=0.0))
    if dtype == "f64" and j_narrow is not None:
        err_j = max(err_j, narrowed_f64_error(np.where(nan_j, 0, np.asarray(j_narrow, np.float64)), b, fin))
    scale = float(np.max(np.abs(b)[fin], initial=0.0))
    bound = headroom_bound(err_j, dtype, scale)
    ratio = err_t / bound if bound > 0 else (0.0 if err_t == 0 else float("inf"))
    return ratio <= 1, f"err {err_t:.3g} (JAX {dtype} {err_j:.3g}, |max| {scale:.3g}) ratio {ratio:.3g}", ratio


def items(root):
    for case_dir in sorted(os.listdir(root)):
        p = os.path.join(root, case_dir)
        if not os.path.isdir(p):
            continue
        for label in sorted(os.listdir(p)):
            if os.path.exists(os.path.join(p, label, "meta.json")):
                yield os.path.join(p, label)


class Tally:
    """What the run found: items and results compared, failures, known and out-of-scope ones."""
    def __init__(self):
        self.items = self.out = self.bad = self.scope = self.known = 0
        self.unknown, self.worst = set(), {}


def parse_args(args):
    """(DUMPDIR, the --filter regex or None), or the exit code 4 after saying what is wrong."""
    if not args or args[0].startswith("-"):
        print("usage: tools/oracles/program_vs_jax.py DUMPDIR [--filter REGEX]\n"
              "  hint: `tandem dump-programs DUMPDIR --suite remat` writes DUMPDIR", file=sys.stderr)
        return 4
    root, filt = args[0], re.compile(args[args.index("--filter") + 1]) if "--filter" in args else None
    if not os.path.isdir(root):
        print(f"error: {root} is not a directory\n  hint: write it with `tandem dump-programs {root}`", file=sys.stderr)
        return 4
    if not os.path.exists(os.path.join(root, "index.json")):
        print(f"error: {root}/index.json is missing: the dump did not finish\n"
              f"  hint: rerun `tandem dump-programs {root}`", file=sys.stderr)
        return 4
    return root, filt


def compare_results(name, got, native, wide, dtypes, t):
    """Each of tandem's results against JAX's, printed and counted into t."""
    for k, (r, a, b, dt) in enumerate(zip(got, native, wide, dtypes)):
        ok, text, ratio = compare(r, a, b, dt)
        t.out += 1
        what = f"{name} result {k}"
        known = next((why for pat, why in KNOWN.items() if re.search(pat, what)), None)
        if known:
            print(f"{'KNOWN' if not ok else 'XPASS'} {what} ({dt}{list(r.shape)}): {text} [{known}]")
            t.known += 1
            continue
        t.bad += not ok
        kind = "float" if is_float(dt) else "exact"
        if kind not in t.worst or ratio > t.worst[kind][0]:
            t.worst[kind] = (ratio, f"{name} result {k}")
        print(f"{'ok  ' if ok else 'FAIL'} {name} result {k} ({dt}{list(r.shape)}): {text}")


def check_item(d, name, meta, t):
    """One dumped item: refused, out of scope, or run by JAX and compared."""
    prog = json.load(open(os.path.join(d, "program.json")))
    if prog.get("schema_version") != SCHEMA_VERSION:
        print(f"FAIL {name}: program.json has schema_version {prog.get('schema_version')}, this tool reads "
              f"{SCHEMA_VERSION} (docs/PROGRAM_JSON.md)")
        t.bad += 1
        return
    used = prims_in(prog, set())
    scope = [f"{p} ({OUT_OF_SCOPE[p]})" for p in sorted(used & OUT_OF_SCOPE.keys())]
    scope = scope or [PRESET_SCOPE.format(p) for p in sorted(dot_presets(prog, set()) - CPU_FAITHFUL_PRESETS)]
    if scope:  # what JAX cannot judge here: a collective, a preset XLA:CPU does not emulate
        print(f"OUT-OF-SCOPE {name}: {', '.join(scope)}")
        t.scope += 1
        return
    missing = sorted(used - RULES.keys())
    if missing:
        t.unknown.update(missing)
        print(f"FAIL {name}: primitive(s) unknown to the interpreter: {', '.join(missing)}")
        t.bad += 1
        return
    load = lambda pre, k: [np.load(os.path.join(d, f"{pre}_{i}.npy")) for i in range(len(meta[k]))]
    arrays, cts, got = load("in", "inputs"), load("ct", "output_cts"), load("engine", "engine")
    try:
        native = run_jax(prog, meta, arrays, cts, wide=False)
        wide = run_jax(prog, meta, arrays, cts, wide=True)
    except Exception as e:  # noqa: BLE001 — any JAX refusal is this item's failure, named
        print(f"FAIL {name}: JAX could not run it: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
        t.bad += 1
        return
    t.items += 1
    if len(native) != len(got):
        print(f"FAIL {name}: tandem gives {len(got)} results, JAX {len(native)}")
        t.bad += 1
        return
    compare_results(name, got, native, wide, meta["engine"], t)


def main():
    parsed = parse_args(sys.argv[1:])
    if parsed == 4:
        return 4
    root, filt = parsed
    t = Tally()
    for entry in json.load(open(os.path.join(root, "index.json"))):
        if "error" in entry and not (filt and not filt.search(entry["case"])):
            print(f"FAIL {entry['case']}: tandem could not build or run it: {entry['error'][:300]}")
            t.bad += 1
    for d in items(root):
        meta = json.load(open(os.path.join(d, "meta.json")))
        name = f"{meta['case']} [{meta['label']}]"
        if not (filt and not filt.search(name)):
            check_item(d, name, meta, t)
    print(f"\n{t.items} items, {t.out} results compared, {t.bad} failed, {t.known} known disagreements, "
          f"{t.scope} items out of scope")
    for kind, (ratio, where) in sorted(t.worst.items()):
        print(f"largest {kind} error/bound ratio: {ratio:.3g} at {where}")
    if t.unknown:
        print(f"primitives unknown to the interpreter: {', '.join(sorted(t.unknown))}")
    if t.items == 0 and t.bad == 0:
        print("error: no item was compared\n  hint: check DUMPDIR and --filter", file=sys.stderr)
        return 4
    return 1 if t.bad else 0


if __name__ == "__main__":
    sys.exit(main())
