#!/usr/bin/env python3
"""tandem's collectives against JAX itself. DUMPDIR is what
`mpirun -np N tandem collectives-dump --out DUMPDIR` wrote: per case (op x parameters x dtype
x group layout) every rank's inputs and tandem's output. Here the same op runs in JAX on N
host CPU devices (XLA_FLAGS=--xla_force_host_platform_device_count=N): jax.shard_map over a
Mesh for one group of all ranks, jax.pmap where axis_index_groups are needed (only pmap takes
them). Each rank's tandem output is compared with JAX's:

  * integer and bool results, and every op that only moves data: exact (value, sign of zero,
    NaN where NaN);
  * pmax / pmin: exact (no rounding);
  * float psum and psum_scatter: |tandem - jax| <= (G-1) * eps * sum_k |x_k| per element (two summation
    orders, each within (G-1) * u * sum|x|; eps = 2u of the dtype); pmean: that / G plus
    2 * eps * |jax| (tandem rounds x / n once; XLA rounds 1/n and then x * (1/n)); pmean of
    integers or bool (an exact sum): within one f32 ulp, counted as a rule where not equal.

Where tandem deliberately differs from JAX (docs/COLLECTIVES.md) the element is checked
against tandem's written rule instead, built from the inputs and JAX's own result, and
counted per rule; a difference no rule explains is a failure. Where JAX has no direct op
(axis_index / pargmax with groups, pbroadcast, which XLA:CPU cannot lower) it is built from
JAX collectives that exist, and printed as derived. An op or layout JAX cannot express (or
XLA:CPU cannot run: ragged_all_to_all, judged instead by a NumPy model of JAX's docstring)
is listed with the reason, never skipped silently.

    tools/oracles/collectives_vs_jax.py DUMPDIR [--verbose]
Exits 0 when every case agrees, 1 when one does not (or tandem refused a case JAX runs),
4 when DUMPDIR is not a dump, 77 when JAX is not installed.
"""
import collections
import json
import os
import sys

if len(sys.argv) < 2 or not os.path.isfile(os.path.join(sys.argv[1], "manifest.json")):
    print("usage: collectives_vs_jax.py DUMPDIR  (DUMPDIR: from `mpirun -np N tandem collectives-dump --out DUMPDIR`)")
    sys.exit(4)
DUMP, VERBOSE = sys.argv[1], "--verbose" in sys.argv
MANIFEST = json.load(open(os.path.join(DUMP, "manifest.json")))
N = MANIFEST["world"]
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={N}").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")
try:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from jax_common import DTYPES, EPS, NAMES  # the oracles' dtypes
except ImportError as missing:
    print(f"skip: {missing} (for {sys.executable})", file=sys.stderr)
    sys.exit(77)
try:  # jax.lax has no pargmax / pargmin; JAX's own implementation lives here
    from jax._src.lax.parallel import pargmax as jax_pargmax, pargmin as jax_pargmin
except ImportError:
    jax_pargmax = jax_pargmin = None

MESH = jax.make_mesh((N,), ("i",))


DERIVED = collections.Counter()  # ops JAX lacks here, built from JAX collectives that it has


class NotExpressible(Exception):
    """JAX (or XLA:CPU) cannot run this op / layout; the message says why."""


def group_position(groups):
    """jax.lax.axis_index takes no axis_index_groups: a member's position in its group as
    JAX's grouped all_gather orders the group (where this device's axis_index lands)."""
    me = lax.axis_index("i")
    return jnp.argmax(lax.all_gather(me, "i", axis_index_groups=groups) == me).astype(jnp.int32)


def jax_body(op, p, groups, G):
    """The per-device function of the op in JAX, on this device's block; `groups` is None for
    one group of all ranks, else axis_index_groups."""
    g = {} if groups is None else {"axis_index_groups": groups}
    if op in ("psum", "pmax", "pmin", "pmean"):
        f = getattr(lax, op)
        return lambda x: f(x, "i", **g)
    if op in ("pargmax", "pargmin") and groups is None:
        fn = jax_pargmax if op == "pargmax" else jax_pargmin
        if fn is None:
            raise NotExpressible(f"this JAX has no {op}")
        return lambda x: fn(x, "i")
    if op in ("pargmax", "pargmin"):
        # JAX's pargmax takes no groups; its own recipe (_axis_index_of_val) with groups.
        DERIVED[f"{op} with groups: JAX's own recipe (_axis_index_of_val) with axis_index_groups"] += 1
        red = lax.pmax if op == "pargmax" else lax.pmin
        return lambda x: lax.pmin(jnp.where(red(x, "i", **g) == x, group_position(groups),
                                            jnp.iinfo(jnp.int32).max).astype(jnp.int32), "i", **g)
    if op == "axis_index":
        if groups is None:
            return lambda x: lax.axis_index("i")
        DERIVED["axis_index with groups: the position in JAX's grouped all_gather of axis_index"] += 1
        return lambda x: group_position(groups)
    if op == "all_gather":
        return lambda x: lax.all_gather(x, "i", axis=p["axis"], tiled=p["tiled"], **g)
    if op == "psum_scatter":
        return lambda x: lax.psum_scatter(x, "i", scatter_dimension=p["scatter_dimension"], tiled=p["tiled"], **g)
    if op == "all_to_all":
        return lambda x: lax.all_to_all(x, "i", p["split_axis"], p["concat_axis"], tiled=p["tiled"], **g)
    if op == "pswapaxes":
        return lambda x: lax.pswapaxes(x, "i", p["axis"], **g)
    if op == "ppermute":
        return lambda x: lax.ppermute(x, "i", perm=[tuple(e) for e in p["perm"]])
    if op == "pshuffle":
        return lambda x: lax.pshuffle(x, "i", perm=p["perm"])
    if op == "pbroadcast":  # no XLA:CPU lowering of pbroadcast, and it takes no groups
        DERIVED["pbroadcast: all_gather(x, groups)[source] (no XLA:CPU lowering, no axis_index_groups)"] += 1
        return lambda x: lax.all_gather(x, "i", **g)[G - 1]
    if op == "ragged_all_to_all":
        return lambda *a: lax.ragged_all_to_all(*a, axis_name="i", **g)
    raise NotExpressible(f"no JAX mapping for op {op}")


def run_jax(body, stacked, groups):
    """Runs body on N devices, stacked[k][r] = rank r's input k; returns [N, ...] numpy."""
    try:
        if groups is None:
            sh = NamedSharding(MESH, P("i"))
            args = [jax.device_put(a, sh) for a in stacked]
            f = jax.shard_map(lambda *a: jnp.expand_dims(body(*(v[0] for v in a)), 0), mesh=MESH,
                              in_specs=(P("i"),) * len(args), out_specs=P("i"), check_vma=False)
            return np.asarray(jax.jit(f)(*args))
        return np.asarray(jax.pmap(body, axis_name="i")(*stacked))
    except NotImplementedError as e:
        raise NotExpressible(f"JAX: {str(e).splitlines()[0]}")
    except Exception as e:  # XLA:CPU reports a missing lowering as UNIMPLEMENTED
        if "UNIMPLEMENTED" in str(e):
            raise NotExpressible(f"XLA:CPU: {str(e).splitlines()[0][:160]}")
        raise


np.seterr(invalid="ignore", over="ignore")


def load(stem, name, r, dtype):
    a = np.load(os.path.join(DUMP, f"{stem}.{name}.r{r}.npy"))
    return a.astype(DTYPES[dtype])


def same(a, b):
    """Element mask: equal values with equal sign of zero, or both NaN."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return ((a == b) & (np.signbit(a) == np.signbit(b))) | (np.isnan(a) & np.isnan(b))


def check_reduction(op, dtype, members, got, want, G):
    """Mask of elements that pass, and {rule: count} of elements where tandem's written rule
    (docs/COLLECTIVES.md) stands in for JAX's answer. members: [G, ...] f64 of my group."""
    rules = collections.Counter()
    want = np.array(want, np.float64)
    isfloat = dtype in ("f64", "f32", "f16", "bf16")
    if isfloat and op in ("pmax", "pmin"):
        anynan = np.isnan(members).any(0)
        rules["pmax/pmin: NaN on any member gives NaN (XLA:CPU drops it)"] += int((anynan & ~np.isnan(want)).sum())
        want[anynan] = np.nan
        zero = (want == 0) & ~anynan
        pos0 = ((members == 0) & ~np.signbit(members)).any(0)
        neg0 = ((members == 0) & np.signbit(members)).any(0)
        rule0 = np.where(pos0, 0.0, -0.0) if op == "pmax" else np.where(neg0, -0.0, 0.0)
        rules["pmax/pmin: -0 < +0 (XLA:CPU keeps the first member's zero)"] += int((zero & ~same(want, rule0)).sum())
        want = np.where(zero, rule0, want)
    if isfloat and op in ("psum", "pmean"):
        allneg0 = ((members == 0) & np.signbit(members)).all(0)
        rules[f"{op} of only -0.0 is -0.0 (JAX: +0.0)"] += int((allneg0 & ~np.signbit(want)).sum())
        want = np.where(allneg0, -0.0, want)
    ok = same(got, want)
    if op == "pmean" and not isfloat:  # an exact sum, then XLA's x * f32(1/n) against tandem's x / n
        near = np.abs(got - want) <= EPS["f32"] * np.abs(want)
        rules["pmean: x / n correctly rounded (XLA: x * f32(1/n)), within 1 ulp"] += int((near & ~ok).sum())
        ok |= near
    if isfloat and op in ("psum", "pmean"):
        finite = np.isfinite(want) & np.isfinite(got)
        bound = (G - 1) * EPS[dtype] * np.abs(members).sum(0)
        if op == "pmean":
            bound = bound / G + 2 * EPS[dtype] * np.abs(want)
        ok |= finite & (np.abs(got - want) <= bound)
    return ok, rules


def check_case(stem, meta):
    """None when it agrees; else the first bad element. Returns (status, detail, rules)."""
    op, dtype, layout, p = meta["jax"], meta["dtype"], meta["layout"], meta["params"]
    groups = None if layout == "all" else meta["groups"]
    size = {r: len(g) for g in meta["groups"] for r in g}
    G0 = len(meta["groups"][0])
    names = ["x"] if op != "ragged_all_to_all" else \
        ["operand", "output", "input_offsets", "send_sizes", "output_offsets", "recv_sizes"]  # JAX's order
    ins = [[load(stem, k, r, meta["in_dtypes"][k]) for r in range(N)] for k in names]
    got = [np.load(os.path.join(DUMP, f"{stem}.out.r{r}.npy")).astype(np.float64) for r in range(N)]
    # f64 needs x64; without it JAX's pmean of integers divides in f32, as by default.
    jax.config.update("jax_enable_x64", dtype == "f64")
    if op == "ragged_all_to_all":  # JAX needs equal shapes: pad each operand with rows nobody sends
        rows = max(a.shape[0] for a in ins[0])
        ins[0] = [np.concatenate([a, np.zeros((rows - a.shape[0],) + a.shape[1:], a.dtype)]) for a in ins[0]]
    stacked = [np.stack(a) for a in ins]
    jres = run_jax(jax_body(op, p, groups, G0), stacked, groups)
    jdtype, rules = jres.dtype, collections.Counter()
    if op == "pmean" and groups is not None and len(set(size.values())) > 1:
        # JAX divides every group by the first group's size; tandem by the member's own.
        # JAX's own pmean once per group, that group listed first (so JAX divides by its size).
        mine = jres.copy()
        for k, grp in enumerate(groups):
            jk = run_jax(jax_body(op, p, [grp] + groups[:k] + groups[k + 1:], len(grp)), stacked, groups)
            mine[grp] = jk[grp]
        rules["pmean divides by the member's own group size (JAX: the first group's)"] += int((~same(mine, jres)).sum())
        jres = mine
    if NAMES.get(np.dtype(jdtype)) != meta["out_dtype"]:
        return "FAIL", f"dtype: tandem {meta['out_dtype']}, JAX {jdtype}", rules
    if op == "psum_scatter" and dtype not in ("i32", "bool"):
        # sum_k |x_k| of each output element: the same op in JAX on |x| (f64 for f64, else f32;
        # its own relative error <= G * 2^-24, covered by the 1.001 headroom).
        wide = np.float64 if dtype == "f64" else np.float32
        absum = run_jax(jax_body(op, p, groups, G0), [np.abs(stacked[0].astype(wide))], groups).astype(np.float64)
    worst = 0.0
    for r in range(N):
        want = np.asarray(jres[r], np.float64)
        if want.shape != got[r].shape:
            return "FAIL", f"rank {r}: shape tandem {got[r].shape}, JAX {want.shape}", rules
        if op in ("psum", "pmax", "pmin", "pmean"):
            grp = next(g for g in meta["groups"] if r in g)
            members = np.stack([np.asarray(ins[0][q], np.float64) for q in grp])
            ok, rr = check_reduction(op, dtype, members, got[r], want, len(grp))
            rules.update(rr)
        elif op in ("pargmax", "pargmin") and dtype != "i32":
            grp = next(g for g in meta["groups"] if r in g)
            members = np.stack([np.asarray(ins[0][q], np.float64) for q in grp])
            anynan = np.isnan(members).any(0)
            first_nan = np.argmax(np.isnan(members), 0)
            rules["pargmax/pargmin: the lowest index holding a NaN"] += int((anynan & (want != first_nan)).sum())
            want = np.where(anynan, first_nan, want)
            ok = same(got[r], want)
        elif op == "psum_scatter" and dtype not in ("i32", "bool"):
            G = size[r]
            ok = same(got[r], want) | (np.abs(got[r] - want) <= 1.001 * (G - 1) * EPS[dtype] * absum[r])
        else:
            ok = same(got[r], want)
        if not ok.all():
            i = np.unravel_index(np.argmin(ok), ok.shape)
            return "FAIL", f"rank {r} element {tuple(int(k) for k in i)}: tandem {got[r][i]!r}, JAX {want[i]!r} ({int((~ok).sum())} bad)", rules
        if dtype not in ("i32", "pred"):
            worst = max(worst, float(np.max(np.abs(got[r] - want), initial=0.0, where=np.isfinite(want))))
    return "ok", f"max |tandem-jax| {worst:.3g}", rules


def ragged_model(stem, meta):
    """NumPy model of JAX's ragged_all_to_all docstring (one slice per peer): each receiver's
    output, with the sender's output_offsets naming where its slice lands on the receiver."""
    f = lambda k, r: load(stem, k, r, meta["in_dtypes"][k])
    for g in meta["groups"]:
        for q, j in enumerate(g):
            res = f("output", j).astype(np.float64)
            for p_, s in enumerate(g):
                n = int(f("recv_sizes", j)[p_])
                if int(f("send_sizes", s)[q]) != n:
                    return f"send_sizes of rank {s} and recv_sizes of rank {j} disagree"
                o, i = int(f("output_offsets", s)[q]), int(f("input_offsets", s)[q])
                res[o:o + n] = f("operand", s)[i:i + n].astype(np.float64)
            got = np.load(os.path.join(DUMP, f"{stem}.out.r{j}.npy")).astype(np.float64)
            if got.shape != res.shape or not same(got, res).all():
                return f"rank {j}: tandem differs from the docstring model"
    return None


def main():
    counts, rules, listed, fails = collections.Counter(), collections.Counter(), collections.defaultdict(list), []
    cased = set()
    for stem in MANIFEST["cases"]:
        meta = json.load(open(os.path.join(DUMP, stem + ".json")))
        cased.add(meta["op"])
        label = f"{meta['jax']}/{meta['variant'] or '-'}/{meta['dtype']}/{meta['layout']}"
        if "skipped" in meta:
            listed[f"tandem skips the layout: {meta['skipped']}"].append(label)
            continue
        if "error" in meta:
            fails.append(f"{label}: tandem refused it: {meta['error']}")
            continue
        try:
            status, detail, rr = check_case(stem, meta)
        except NotExpressible as e:
            reason = str(e)
            if meta["op"] == "ragged_all_to_all":
                bad = ragged_model(stem, meta)
                reason += "; checked instead against a NumPy model of JAX's docstring" + (f": {bad}" if bad else " (agrees)")
                if bad:
                    fails.append(f"{label}: {bad}")
            listed[reason].append(label)
            continue
        except Exception as e:
            fails.append(f"{label}: JAX raised {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            continue
        rules.update(rr)
        counts[status] += 1
        if status != "ok":
            fails.append(f"{label}: {detail}")
        elif VERBOSE:
            print(f"ok    {label}: {detail}")
    for op in MANIFEST["ops"]:
        if op not in cased:
            listed[f"no case dumped ({'jax.lax has no ' + op + ' in JAX ' + jax.__version__ if not hasattr(lax, op) else 'not in the dump'})"].append(op)
    print(f"JAX {jax.__version__} on {N} CPU devices vs tandem collectives-dump ({DUMP}): "
          f"{counts['ok']} cases agree, {len(fails)} disagree")
    for rule, k in sorted(rules.items()):
        print(f"  rule (tandem differs from JAX on purpose) {rule}: {k} elements")
    for how, k in sorted(DERIVED.items()):
        print(f"  derived in JAX (no direct JAX op) {how}: {k} cases")
    for reason, labels in listed.items():
        print(f"  NOT CHECKED against JAX: {reason}: {len(labels)} cases, e.g. {', '.join(labels[:3])}")
    for f in fails:
        print(f"  FAIL {f}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
