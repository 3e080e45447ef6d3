#!/usr/bin/env python3
"""A user's JAX function as a tandem Program (the `tandem import` path): traces it with
jax.make_jaxpr on example inputs and writes what `tandem check --program DIR` reads.

    tools/import/export_jax_program.py SPEC --out DIR [--arg f32[4,3] ...] [--seed N]

SPEC is `module:function` (importable from the current directory; --arg gives each argument's
dtype and shape, drawn with --seed: normal(0, 1) for floats, integers in [0, 4), random bools),
or `path/file.py` defining `function` and `example_args()` (a tuple of arguments, pytrees of
arrays allowed) and optionally `VMAP = {"in_axes": [0, None, ...], "size": 8}` (per argument,
where the batch axis of a vmapped call sits, or None; `size` the batch). DIR gets:

    program.json              the Program (docs/PROGRAM_JSON.md); the arguments' leaves are its
                              first inputs, closed-over non-scalar constants the rest
    inputs/arg_<i>.npy        one per program input, constants included (bf16 saved as f32,
                              bool as i32: the dtypes tandem's .npy reader takes; exact)
    jax/out_<i>.npy           the function's own outputs on them (called, not the jaxpr)
    jax/saved_residuals.json  {policy string: [JAX's saved residual types]} of jax.checkpoint(f,
                              policy) differentiated w.r.t. every floating argument leaf, for
                              every built-in policy and, with checkpoint names N, the name
                              policies over N; "as_written": f itself. Absent (export.json
                              says why) when an output is not floating.
    export.json               function, jax_version, inputs (dtype, shape, constant), outputs,
                              vmap (in_axes per program input, size, out_axes) or null,
                              residuals_wrt (the differentiated inputs), unsupported
                              (primitives written that tandem lacks, with their source)

A primitive tandem lacks is written under its JAX name and noted on stderr: tandem refuses
it, naming the equation. Exit 0 written; 4 bad usage or something Program JSON cannot say
(with a hint:); 77 JAX is not installed.
"""
import argparse
import importlib
import importlib.util
import json
import os
import re
import sys
import tempfile


# The command line first, JAX after: bad usage is refused in a fraction of a second.
class BadUsage(Exception):
    def __init__(self, what, hint):
        super().__init__(what)
        self.hint = hint


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's exit 2 would not carry a hint
        raise BadUsage(message, "tools/import/export_jax_program.py SPEC --out DIR [--arg f32[4,3] ...] [--seed N]")


def build_parser():
    """The options (`tandem import` passes its arguments here; runners/option_walk_test.py walks them)."""
    p = Parser(prog="export_jax_program.py", description=__doc__.split("\n\n")[0])
    p.add_argument("spec", help="module:function or path/file.py")
    p.add_argument("--out", required=True, help="the directory to write")
    p.add_argument("--arg", action="append", default=[], help="an argument's type, e.g. f32[4,3]")
    p.add_argument("--seed", type=int, default=0)
    return p


def parse_args(argv):
    return build_parser().parse_args(argv)


def check_usage(args):
    """What is bad usage whatever the function: refused before JAX is imported (its import takes
    seconds; runners/option_walk_test.py walks every value of every option through here)."""
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise BadUsage(f"--out {args.out} is a file", "give a directory (it is created if missing)")
    if args.spec.endswith(".py"):
        if args.arg:
            raise BadUsage("--arg with a file SPEC", "a file SPEC's example_args() gives the arguments")
        if not os.path.isfile(args.spec):
            raise BadUsage(f"{args.spec}: no such file", "give a .py file defining `function` and `example_args()`")
        return
    module_name, _, fn_name = args.spec.partition(":")
    if not module_name or not fn_name:
        raise BadUsage(f"{args.spec}: not module:function nor a .py file", "e.g. mymodel:loss --arg f32[4,3]")
    if not args.arg:
        raise BadUsage(f"{args.spec}: no --arg", "give one --arg DTYPE[SHAPE] per argument of the function")


def refuse_bad_usage(argv):
    """The command line's own errors, exit 4 with a hint, before the seconds of JAX's import."""
    try:
        check_usage(parse_args(argv))
    except BadUsage as e:
        print(f"error: {e}\n  hint: {e.hint}", file=sys.stderr)
        sys.exit(4)


if __name__ == "__main__":
    refuse_bad_usage(sys.argv[1:])

try:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax._src.ad_checkpoint import saved_residuals
except ImportError as missing:
    print(f"skip: {missing} (for {sys.executable})\n  hint: python3 -m pip install jax", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jaxpr_to_program as j2p  # noqa: E402

# The project root (source tree, or share/tandem when installed) holds reports/: its --out lock.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from reports.atomic import out_dir_lock  # noqa: E402
from reports.exit_codes import TandemError  # noqa: E402

# tandem's dtype name -> its NumPy type, from the one table of names (jaxpr_scope.DTYPES)
NP_DTYPES = {name: jnp.dtype(np_name).type for np_name, name in j2p.DTYPES.items()}
ARG = re.compile(r"(" + "|".join(NP_DTYPES) + r")\[([0-9, ]*)\]")
# The policies every export is checked under (tandem's strings; tools/oracles/program_vs_jax.py
# policy_of maps each back to jax.checkpoint_policies), and those over the program's names.
FIXED_POLICIES = ("everything_saveable", "nothing_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable")
NAME_POLICIES = ("save_only_these_names", "save_any_names_but_these")


def user_code(what, thunk):
    """Runs the user's code; its exception is bad input named with its first line, not a traceback."""
    try:
        return thunk()
    except (BadUsage, j2p.Unserialisable):
        raise
    except Exception as e:  # noqa: BLE001 — whatever the user's code raises is reported, named
        first = (str(e).strip().splitlines() or [""])[0][:300]
        raise BadUsage(f"{what} raised {type(e).__name__}: {first}",
                       "run the function on its example arguments in Python first; it must trace with jax.make_jaxpr")


# ---- the function and its inputs -----------------------------------------------------------

def load_file(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    user_code(f"loading {path}", lambda: spec.loader.exec_module(module))
    for name in ("function", "example_args"):
        if not callable(getattr(module, name, None)):
            raise BadUsage(f"{path} defines no callable `{name}`",
                           "a file SPEC defines `function` and `example_args()` returning its arguments")
    fn_args = user_code(f"{path}: example_args()", lambda: tuple(module.example_args()))
    return module.function, fn_args, getattr(module, "VMAP", None), os.path.basename(path)


def arg_array(text, rng):
    m = ARG.fullmatch(text.replace(" ", ""))
    if not m:
        raise BadUsage(f"--arg {text}: not a type", "write DTYPE[D0,D1,...] with DTYPE one of "
                       f"{', '.join(NP_DTYPES)}, e.g. f32[4,3] or f32[] for a scalar")
    dtype, shape = m.group(1), tuple(int(d) for d in m.group(2).split(",") if d)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype == "i32":
        return rng.integers(0, 4, shape).astype(np.int32)
    return rng.standard_normal(shape).astype(NP_DTYPES[dtype])


def load_module(spec, arg_texts, seed):
    module_name, _, fn_name = spec.partition(":")
    sys.path.insert(0, os.getcwd())
    module = user_code(f"importing {module_name}", lambda: importlib.import_module(module_name))
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        raise BadUsage(f"{spec}: module {module_name} has no function {fn_name}",
                       "the module must import from the current directory and define the function")
    rng = np.random.default_rng(seed)
    return fn, tuple(jnp.asarray(arg_array(t, rng)) for t in arg_texts), None, spec


def load(args):
    if args.spec.endswith(".py"):
        return load_file(args.spec)
    return load_module(args.spec, args.arg, args.seed)


def vmap_entry(vmap, fn_args, n_constants, n_out):
    """VMAP's per-argument in_axes, per program input (every leaf of an argument; constants None)."""
    if vmap is None:
        return None
    in_axes, size = vmap.get("in_axes"), vmap.get("size")
    if not isinstance(in_axes, (list, tuple)) or len(in_axes) != len(fn_args) or not isinstance(size, int) or size < 1:
        raise BadUsage(f"VMAP = {vmap}", f"VMAP = {{'in_axes': [one int or None per argument ({len(fn_args)})], "
                       "'size': a positive int}")
    per_input = []
    for axis, arg in zip(in_axes, fn_args):
        for leaf in jax.tree_util.tree_leaves(arg):
            if axis is not None and not 0 <= axis <= np.ndim(leaf):
                raise BadUsage(f"VMAP in_axes {axis} for an argument of rank {np.ndim(leaf)}",
                               "the batch axis of a rank-r example argument is 0 ... r")
            per_input.append(axis)
    return {"in_axes": per_input + [None] * n_constants, "size": size, "out_axes": [0] * n_out}


# ---- what JAX says -------------------------------------------------------------------------

def flat_function(fn, treedef):
    """fn over its arguments' leaves, returning its outputs' leaves as a tuple."""
    def f(*leaves):
        return tuple(jax.tree_util.tree_leaves(fn(*jax.tree_util.tree_unflatten(treedef, leaves))))
    return f


def residual_types(f, leaves, wrt, policy):
    """JAX's saved residuals of f (wrapped in jax.checkpoint under `policy` unless None),
    differentiated w.r.t. leaves[wrt]; literal residuals dropped (tools/oracles/saved_residuals_vs_jax.py)."""
    g = f if policy is None else jax.checkpoint(f, policy=policy)

    def h(*diff):
        full = list(leaves)
        for i, d in zip(wrt, diff):
            full[i] = d
        return g(*full)

    res = saved_residuals(h, *[leaves[i] for i in wrt])
    return [a.str_short(short_dtypes=True) for a, src in res if not src.startswith("from a literal")]


def policy_strings(names):
    spec = ",".join(names)
    return list(FIXED_POLICIES) + ([f"{p}({spec})" for p in NAME_POLICIES] if names else [])


def jax_policy(spec):
    """A policy string of FIXED_POLICIES / NAME_POLICIES as the jax.checkpoint_policies object."""
    cp = jax.checkpoint_policies
    name, _, arg = spec.partition("(")
    return getattr(cp, name)(*arg.rstrip(")").split(",")) if arg else getattr(cp, name)


def saved_residuals_by_policy(f, leaves, wrt, names):
    out = {"as_written": residual_types(f, leaves, wrt, None)}
    for spec in policy_strings(names):
        out[spec] = residual_types(f, leaves, wrt, jax_policy(spec))
    return out


# ---- writing -------------------------------------------------------------------------------

def write_atomic(path, write):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json(path, obj):
    write_atomic(path, lambda f: f.write((json.dumps(obj, indent=1) + "\n").encode()))


def storable(a):
    """An array as an .npy tandem reads (runners/cli/npy_io.cc: f32, f64, f16, i32): bf16 as
    f32 and bool as i32, which hold every value exactly; tandem converts them back by the
    program's input types (export.json's too)."""
    a = np.asarray(a)
    if a.dtype == jnp.bfloat16:
        return a.astype(np.float32)
    if a.dtype == np.bool_:
        return a.astype(np.int32)
    return a


def write_npys(folder, prefix, arrays):
    """prefix_<i>.npy for each array; earlier exports' files beyond them are removed."""
    for i, a in enumerate(arrays):
        write_atomic(os.path.join(folder, f"{prefix}_{i}.npy"), lambda f, a=a: np.save(f, storable(a)))
    pattern = re.compile(rf"{prefix}_(\d+)\.npy")
    for name in os.listdir(folder):
        m = pattern.fullmatch(name)
        if m and int(m.group(1)) >= len(arrays):
            os.unlink(os.path.join(folder, name))


def is_floating(a):
    return jnp.issubdtype(np.asarray(a).dtype, jnp.floating)


def describe(a, constant=None):
    d = {"dtype": j2p.dtype_name(np.asarray(a).dtype), "shape": list(np.shape(a))}
    if constant is not None:
        d["constant"] = constant
    return d


def export(args):
    check_usage(args)
    fn, fn_args, vmap, label = load(args)
    leaves, treedef = jax.tree_util.tree_flatten(fn_args)
    leaves = [jnp.asarray(x) for x in leaves]
    f = flat_function(fn, treedef)
    closed = user_code(f"tracing {label}", lambda: jax.make_jaxpr(f)(*leaves))
    program, constants, unsupported = j2p.convert(closed)
    outputs = user_code(f"calling {label}", lambda: [np.asarray(o) for o in f(*leaves)])
    if len(outputs) != len(program["outvars"]):
        raise BadUsage(f"the function gives {len(outputs)} outputs, its jaxpr {len(program['outvars'])}",
                       "a function whose outputs depend on Python state between calls cannot be exported")
    for prim, src in sorted(unsupported.items()):
        print(f"note: {prim} at {src} is not a tandem primitive; tandem will refuse it", file=sys.stderr)
    wrt = [i for i, x in enumerate(leaves) if is_floating(x)]
    meta = {"function": label, "jax_version": jax.__version__,
            "inputs": [describe(x, False) for x in leaves] + [describe(c, True) for c in constants],
            "outputs": [describe(o) for o in outputs],
            "vmap": vmap_entry(vmap, fn_args, len(constants), len(outputs)),
            "residuals_wrt": wrt, "unsupported": sorted(unsupported)}
    residuals = None
    if not all(is_floating(o) for o in outputs):
        meta["saved_residuals"] = "not written: an output is not floating, so the function has no vjp to save for"
    elif not wrt:
        meta["saved_residuals"] = "not written: no argument is floating"
    else:
        try:
            residuals = saved_residuals_by_policy(f, leaves, wrt, j2p.checkpoint_names(program))
            meta["saved_residuals"] = "jax/saved_residuals.json"
        except Exception as e:  # noqa: BLE001 — JAX refusing to differentiate is a fact to record, not a failure
            first = (str(e).strip().splitlines() or [""])[0][:300]
            meta["saved_residuals"] = f"not written: JAX's saved_residuals raised {type(e).__name__}: {first}"
            print(f"note: {meta['saved_residuals']}", file=sys.stderr)
    out = args.out
    with out_dir_lock(out, "import"):  # one writer per folder, as `tandem run --out`
        write_export(out, leaves, constants, outputs, residuals, program, meta)
    print(f"wrote {out}: {len(program['invars'])} inputs ({len(constants)} constants), "
          f"{len(program['eqns'])} equations, {len(outputs)} outputs"
          + (f"; not tandem primitives: {', '.join(sorted(unsupported))}" if unsupported else ""))


def write_export(out, leaves, constants, outputs, residuals, program, meta):
    write_npys(os.path.join(out, "inputs"), "arg", [np.asarray(x) for x in leaves] + list(constants))
    write_npys(os.path.join(out, "jax"), "out", outputs)
    res_path = os.path.join(out, "jax", "saved_residuals.json")
    if residuals is not None:
        write_json(res_path, residuals)
    elif os.path.exists(res_path):
        os.unlink(res_path)
    write_json(os.path.join(out, "program.json"), program)
    write_json(os.path.join(out, "export.json"), meta)


def main(argv):
    try:
        export(parse_args(argv))
    except (BadUsage, j2p.Unserialisable) as e:
        print(f"error: {e}\n  hint: {e.hint}", file=sys.stderr)
        return 4
    except TandemError as e:  # another tandem holds --out
        print(e.render(), file=sys.stderr)
        return e.code
    except OSError as e:  # the output directory: unwritable, a full disk
        print(f"error: writing the export: {e}\n  hint: give --out a directory you can write", file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
