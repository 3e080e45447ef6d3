#!/usr/bin/env python3
"""tools/import/export_jax_program.py on examples/ (ctest export_jax_program; exit 77, a skip, without
JAX). Each example is exported into a temporary directory and the export itself is checked:

  a. JAX's interpretation of the written program.json (tools/oracles/program_vs_jax.py `interpret`)
     equals the function's own outputs, within program_vs_jax's derived bound (4x JAX's own
     f32-vs-f64 error, or 16 ulps of the largest magnitude); under VMAP too, jax.vmap of both;
     a closed-over constant becomes an input marked constant; JAX's saved residuals of the
     interpreted program are those the exporter wrote;
  b. a primitive tandem lacks is written under its JAX name, with its source line, and listed;
  c. every remat policy string the exporter writes maps back (program_vs_jax.policy_of) to a
     policy deciding as the user's JAX policy on every probe equation;
  d. bad usage exits 4 with a hint, never a traceback.
With a tandem binary as argument whose `check` reads --program, tandem reads the exports
(an export listing a primitive tandem lacks is refused with exit 4 naming it); otherwise that
part is skipped, said.

    tools/import/export_jax_program_test.py [TANDEM_BINARY]     (also runs under pytest)
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax._src.ad_checkpoint import saved_residuals
except ImportError as missing:
    print(f"SKIP: {missing} (for {sys.executable})", file=sys.stderr)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "oracles"))  # program_vs_jax: JAX's interpretation
import jaxpr_to_program as j2p  # noqa: E402
import program_vs_jax as pj  # noqa: E402  (enables jax_enable_x64 for its f64 run)

# What tandem has, per the JAX oracle's table (a rule, or why out of scope); check_with_tandem checks it.
TANDEM_PRIMITIVES = frozenset(pj.RULES) | frozenset(pj.OUT_OF_SCOPE)
EXPORTER = os.path.join(HERE, "export_jax_program.py")
EXAMPLES = ("mlp_checkpoint", "lstm_scan", "attention_vmap")


def export(spec, out, *extra, cwd=ROOT):
    return subprocess.run([sys.executable, EXPORTER, spec, "--out", out, *extra], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def exported(name, tmp):
    out = os.path.join(tmp, name)
    r = export(os.path.join("examples", f"{name}.py"), out)
    assert r.returncode == 0, f"{name}: exit {r.returncode}\n{r.stderr}"
    prog = json.load(open(os.path.join(out, "program.json")))
    meta = json.load(open(os.path.join(out, "export.json")))
    return out, prog, meta, r


def load_arrays(out, sub, prefix, n):
    return [np.load(os.path.join(out, sub, f"{prefix}_{i}.npy")) for i in range(n)]


def interpreted(prog, meta, args, wide, vmap=None):
    cast = [jnp.asarray(a, pj.dtype_of(m["dtype"], wide)) for a, m in zip(args, meta["inputs"])]
    f = lambda *a: tuple(pj.interpret(prog, list(a), wide))
    if vmap:
        f = jax.vmap(f, in_axes=tuple(vmap["in_axes"]), axis_size=vmap["size"])
    return [np.asarray(r) for r in f(*cast)]


def assert_agree(what, got, native, wide, meta):
    assert len(got) == len(native) == len(meta["outputs"]), what
    for k, (t, a, b, m) in enumerate(zip(got, native, wide, meta["outputs"])):
        ok, text, _ = pj.compare(np.asarray(t), a, b, m["dtype"])
        assert ok, f"{what} output {k}: {text}"
        print(f"ok   {what} output {k}: {text}")


def example_module(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- a. the export computes what the function computes ------------------------------------

def test_examples_interpret_as_jax_computes():
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXAMPLES:
            out, prog, meta, _ = exported(name, tmp)
            args = load_arrays(out, "inputs", "arg", len(meta["inputs"]))
            want = load_arrays(out, "jax", "out", len(meta["outputs"]))
            assert_agree(name, want, interpreted(prog, meta, args, False), interpreted(prog, meta, args, True), meta)


def test_vmap_of_the_program_is_vmap_of_the_function():
    with tempfile.TemporaryDirectory() as tmp:
        out, prog, meta, _ = exported("attention_vmap", tmp)
        vm, module = meta["vmap"], example_module("attention_vmap")
        assert vm["in_axes"] == [None] * 4 + [0] and vm["size"] == module.BATCH
        args = load_arrays(out, "inputs", "arg", len(meta["inputs"]))
        rng = np.random.default_rng(7)
        batched = [a if ax is None else rng.standard_normal(np.insert(a.shape, ax, vm["size"])).astype(a.dtype)
                   for a, ax in zip(args, vm["in_axes"])]
        params, x = tuple(batched[:4]), batched[4]
        want = [np.asarray(jax.vmap(module.function, in_axes=(None, 0))(params, x))]
        assert_agree("attention_vmap under vmap", want, interpreted(prog, meta, batched, False, vm),
                     interpreted(prog, meta, batched, True, vm), meta)


def test_closed_over_constant_is_an_input():
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "closes_over.py"), "w") as f:
            f.write("import jax.numpy as jnp\nimport numpy as np\nW = np.arange(12, dtype=np.float32).reshape(3, 4)\n"
                    "def f(x):\n    return jnp.tanh(x @ W) * 0.5\n")
        out = os.path.join(tmp, "out")
        r = export("closes_over:f", out, "--arg", "f32[2,3]", "--seed", "3", cwd=tmp)
        assert r.returncode == 0, r.stderr
        meta, prog = json.load(open(os.path.join(out, "export.json"))), json.load(open(os.path.join(out, "program.json")))
        assert [i["constant"] for i in meta["inputs"]] == [False, True], meta["inputs"]
        args = load_arrays(out, "inputs", "arg", 2)
        assert np.array_equal(args[1], np.arange(12, dtype=np.float32).reshape(3, 4))
        assert np.array_equal(args[0], np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32))
        want = load_arrays(out, "jax", "out", 1)
        assert_agree("closes_over", want, interpreted(prog, meta, args, False), interpreted(prog, meta, args, True), meta)


# One function through many rows of jaxpr_to_program.RULES: custom_vjp / custom_jvp calls
# inlined, jnp.where (select_n, an inf literal), a reverse fully unrolled scan, a checkpoint
# under save_from_both_policies, transpose, concatenate, stack, unstack, integers, dynamic_slice.
MANY_ROWS = """
import jax, jax.numpy as jnp
from jax import lax
cp = jax.checkpoint_policies

@jax.custom_vjp
def f(x):
    return jnp.sin(x)
f.defvjp(lambda x: (jnp.sin(x), x), lambda r, g: (g * jnp.cos(r),))

def g(x, w, i):
    y = f(x) + jax.nn.relu(x) + jax.nn.gelu(x)
    z = jnp.minimum(jnp.where(x > 0, jnp.inf, y), 3.0)
    def body(c, xs):
        return c * 0.5 + xs @ w, jnp.tanh(c)
    c, ys = lax.scan(body, jnp.zeros(w.shape[1]), jnp.stack([x, x]), reverse=True, unroll=True)
    policy = cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("a"))
    h = jax.checkpoint(lambda u: jnp.exp(u) @ w.T, policy=policy)(c)
    p, q, r = jnp.unstack(w, axis=0)
    return (z, ys, h, jnp.transpose(jnp.concatenate([ys, ys], 0)), (i * 2)[1:],
            lax.dynamic_slice(x, (i[0],), (2,)), p * q - r)
"""


def test_many_rows_interpret_as_jax_computes():
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "many_rows.py"), "w") as f:
            f.write(MANY_ROWS)
        out = os.path.join(tmp, "out")
        r = export("many_rows:g", out, "--arg", "f32[3]", "--arg", "f32[3,4]", "--arg", "i32[3]", cwd=tmp)
        assert r.returncode == 0, r.stderr
        meta, prog = json.load(open(os.path.join(out, "export.json"))), json.load(open(os.path.join(out, "program.json")))
        assert meta["unsupported"] == [], meta["unsupported"]
        assert "not floating" in meta["saved_residuals"], meta["saved_residuals"]
        assert j2p.policies_in(prog) == ["save_from_both_policies(dots_saveable;save_only_these_names(a))"]
        args = load_arrays(out, "inputs", "arg", len(meta["inputs"]))
        want = load_arrays(out, "jax", "out", len(meta["outputs"]))
        assert_agree("many_rows", want, interpreted(prog, meta, args, False), interpreted(prog, meta, args, True), meta)


def test_bf16_and_bool_are_saved_as_tandem_reads_them():
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "narrow.py"), "w") as f:
            f.write("import jax.numpy as jnp\ndef f(x, m):\n    return jnp.where(m, x * 2, x), x > 0\n")
        out = os.path.join(tmp, "out")
        r = export("narrow:f", out, "--arg", "bf16[4]", "--arg", "bool[4]", cwd=tmp)
        assert r.returncode == 0, r.stderr
        meta, prog = json.load(open(os.path.join(out, "export.json"))), json.load(open(os.path.join(out, "program.json")))
        assert [i["dtype"] for i in meta["inputs"]] == ["bf16", "bool"], meta["inputs"]
        args = load_arrays(out, "inputs", "arg", 2)
        want = load_arrays(out, "jax", "out", 2)
        assert [a.dtype for a in args + want] == [np.float32, np.int32, np.float32, np.int32], [a.dtype for a in args + want]
        assert_agree("narrow", want, interpreted(prog, meta, args, False), interpreted(prog, meta, args, True), meta)


def test_scan_body_constants_become_scan_consts():
    """A scan body closed over a constant (a ClosedJaxpr with consts; make_jaxpr hoists them
    today, so the jaxpr is rewritten here to have one): the constant becomes a program input
    threaded in as an extra scan const, and the program still computes the function."""
    from jax._src import core
    from jax._src.interpreters import partial_eval as pe
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    f = lambda xs: lax.scan(lambda c, x: (c + jnp.tanh(x @ w), c.sum()), jnp.zeros(4, np.float32), xs)
    xs = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    closed = jax.make_jaxpr(f)(xs)
    eq = next(e for e in closed.jaxpr.eqns if e.primitive.name == "scan")
    body = core.ClosedJaxpr(pe.convert_invars_to_constvars(eq.params["jaxpr"].jaxpr, 1), [w])
    scan = eq.replace(params={**eq.params, "jaxpr": body, "num_consts": 0}, invars=eq.invars[1:])
    closed = core.ClosedJaxpr(closed.jaxpr.replace(eqns=[scan if e is eq else e for e in closed.jaxpr.eqns]), closed.consts)
    prog, consts, _ = j2p.convert(closed)
    assert [e["params"]["num_consts"] for e in prog["eqns"] if e["primitive"] == "scan"] == [1]
    got = pj.interpret(prog, [jnp.asarray(xs)] + [jnp.asarray(c) for c in consts], False)
    for a, b in zip(got, f(xs)):
        assert np.array_equal(np.asarray(a), np.asarray(b)), (a, b)


def test_saved_residuals_of_the_program_are_the_functions():
    """The program keeps what JAX saves: the residuals of the interpreted program, per policy,
    are those the exporter wrote from the function itself."""
    import export_jax_program as ex
    with tempfile.TemporaryDirectory() as tmp:
        for name, names in (("mlp_checkpoint", ["pre"]), ("lstm_scan", [])):
            out, prog, meta, _ = exported(name, tmp)
            written = json.load(open(os.path.join(out, "jax", "saved_residuals.json")))
            assert set(written) == {"as_written", *ex.policy_strings(names)}, sorted(written)
            assert "save_only_these_names(pre)" in written or not names
            args = [jnp.asarray(a, pj.dtype_of(m["dtype"], False))
                    for a, m in zip(load_arrays(out, "inputs", "arg", len(meta["inputs"])), meta["inputs"])]
            f = lambda *a: tuple(pj.interpret(prog, list(a), False))
            for spec, types in written.items():
                policy = None if spec == "as_written" else pj.policy_of(spec)
                got = ex.residual_types(f, args, meta["residuals_wrt"], policy)
                assert sorted(got) == sorted(types), f"{name} {spec}: program saves {sorted(got)}, function {sorted(types)}"
                print(f"ok   {name}: saved residuals under {spec}: {len(types)}")


# ---- b. a primitive tandem lacks ----------------------------------------------------------

def eqns_of(prog):
    for e in prog["eqns"]:
        yield e
        for v in e["params"].values():
            if isinstance(v, dict) and "program" in v:
                yield from eqns_of(v["program"])


def test_unsupported_primitive_is_written_and_listed():
    with tempfile.TemporaryDirectory() as tmp:
        out, prog, meta, r = exported("unsupported_primitive", tmp)
        cumprod = [e for e in eqns_of(prog) if e["primitive"] == "cumprod"]
        assert len(cumprod) == 1 and cumprod[0]["source"] == "examples/unsupported_primitive.py:13", cumprod
        assert cumprod[0]["params"].get("axis") == 0, cumprod[0]["params"]
        assert meta["unsupported"] == ["cumprod"], meta["unsupported"]
        assert "note: cumprod at examples/unsupported_primitive.py:13 is not a tandem primitive" in r.stderr, r.stderr
    with tempfile.TemporaryDirectory() as tmp:  # the other examples use tandem's primitives only
        for name in EXAMPLES:
            _, prog, meta, _ = exported(name, tmp)
            assert meta["unsupported"] == [], (name, meta["unsupported"])
            assert {e["primitive"] for e in eqns_of(prog)} <= TANDEM_PRIMITIVES, name


# ---- c. remat policies round trip ---------------------------------------------------------

def probes():
    """(primitive, params) a policy is asked about: dots with and without batch dims, names, sin."""
    from jax._src.ad_checkpoint import name_p
    dot = lax.dot_general_p
    return [(dot, {"dimension_numbers": (((1,), (0,)), ((), ()))}),
            (dot, {"dimension_numbers": (((2,), (1,)), ((0,), (0,)))}),
            (name_p, {"name": "pre"}), (name_p, {"name": "other"}), (lax.sin_p, {})]


def decisions(policy):
    return [policy(prim, **params) for prim, params in probes()]


def test_policy_strings_map_back_to_the_same_policy():
    cp = jax.checkpoint_policies
    users = [None, cp.everything_saveable, cp.nothing_saveable, cp.dots_saveable, cp.checkpoint_dots,
             cp.dots_with_no_batch_dims_saveable, cp.save_only_these_names("pre", "b"),
             cp.save_any_names_but_these("pre"), cp.save_anything_except_these_names("pre"),
             cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("pre")),
             cp.offload_dot_with_no_batch_dims("device", "pinned_host"),
             cp.save_and_offload_only_these_names(names_which_can_be_saved=["pre"], names_which_can_be_offloaded=["other"],
                                                  offload_src="device", offload_dst="pinned_host")]
    for user in users:
        spec = j2p.policy_string(user)
        want = decisions(user if user is not None else cp.nothing_saveable)
        assert decisions(pj.policy_of(spec)) == want, f"{user} -> {spec}"
        print(f"ok   policy {getattr(user, '__qualname__', user)} -> {spec}")
    # Each checkpoint of the example is written with a string deciding as its JAX policy.
    module = example_module("mlp_checkpoint")
    closed = jax.make_jaxpr(module.function)(*module.example_args())
    theirs = [e.params["policy"] for e in closed.jaxpr.eqns if e.primitive.name in ("checkpoint", "remat2")]
    with tempfile.TemporaryDirectory() as tmp:
        _, prog, _, _ = exported("mlp_checkpoint", tmp)
        written = j2p.policies_in(prog)
    assert len(written) == len(theirs) == 2, (written, theirs)
    for spec, policy in zip(written, theirs):
        assert decisions(pj.policy_of(spec)) == decisions(policy), (spec, policy)
        print(f"ok   mlp_checkpoint's checkpoint written with {spec}")


def test_user_policy_is_refused():
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "own_policy.py"), "w") as f:
            f.write("import jax, jax.numpy as jnp\n"
                    "def function(x):\n    return jax.checkpoint(jnp.sin, policy=lambda *_, **__: True)(x)\n"
                    "def example_args():\n    return (jnp.ones(3),)\n")
        r = export(os.path.join(tmp, "own_policy.py"), os.path.join(tmp, "out"))
        assert r.returncode == 4 and "hint:" in r.stderr and "Traceback" not in r.stderr, r.stderr


# ---- d. bad usage -------------------------------------------------------------------------

def test_bad_usage_exits_4_with_a_hint():
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "raises.py"), "w") as f:
            f.write("def function(x):\n    return x @ x\ndef example_args():\n    import numpy as np\n"
                    "    return (np.ones((2, 3), np.float32),)\n")
        with open(os.path.join(tmp, "no_args.py"), "w") as f:
            f.write("def function(x):\n    return x\n")
        cases = {
            "no arguments": [sys.executable, EXPORTER],
            "no --out": [sys.executable, EXPORTER, "examples/mlp_checkpoint.py"],
            "missing file": [sys.executable, EXPORTER, "examples/nope.py", "--out", tmp],
            "not module:function": [sys.executable, EXPORTER, "justaname", "--out", tmp, "--arg", "f32[2]"],
            "bad --arg": [sys.executable, EXPORTER, "numpy:sin", "--out", tmp, "--arg", "f33[2]"],
            "no --arg": [sys.executable, EXPORTER, "numpy:sin", "--out", tmp],
            "no such function": [sys.executable, EXPORTER, "numpy:no_such_fn", "--out", tmp, "--arg", "f32[2]"],
            "function raises": [sys.executable, EXPORTER, os.path.join(tmp, "raises.py"), "--out", tmp],
            "no example_args": [sys.executable, EXPORTER, os.path.join(tmp, "no_args.py"), "--out", tmp],
            "--arg with a file": [sys.executable, EXPORTER, "examples/mlp_checkpoint.py", "--out", tmp, "--arg", "f32[2]"],
            "--out a file": [sys.executable, EXPORTER, "examples/mlp_checkpoint.py", "--out", os.path.join(tmp, "no_args.py")],
        }
        for what, cmd in cases.items():
            r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
            assert r.returncode == 4, f"{what}: exit {r.returncode}\n{r.stderr}"
            assert "hint:" in r.stderr and "Traceback" not in r.stderr, f"{what}:\n{r.stderr}"
            print(f"ok   bad usage ({what}): {r.stderr.splitlines()[0]}")


# ---- tandem reads the export, when it can -------------------------------------------------

def tandem_reads_programs(tandem):
    if not tandem or not os.access(tandem, os.X_OK):
        return False
    r = subprocess.run([tandem, "check", "--help"], capture_output=True, text=True, timeout=60)
    return "--program" in r.stdout


def check_with_tandem(tandem):
    """The JAX oracle's primitives are the binary's; tandem reads every export:
    one using only tandem's primitives is read and checked (exit 0 or 1: its verdicts are
    tandem's own tests' business), one listing a primitive tandem lacks is refused with exit 4."""
    listed = subprocess.run([tandem, "list", "--primitives"], capture_output=True, text=True, timeout=60)
    theirs = {line.split()[0] for line in listed.stdout.splitlines() if line.strip()}
    assert theirs == TANDEM_PRIMITIVES, (f"program_vs_jax's RULES and OUT_OF_SCOPE differ from `tandem list --primitives`: "
                                             f"tandem only {sorted(theirs - TANDEM_PRIMITIVES)}, "
                                             f"oracle only {sorted(TANDEM_PRIMITIVES - theirs)}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXAMPLES + ("unsupported_primitive",):
            out, _, meta, _ = exported(name, tmp)
            r = subprocess.run([tandem, "check", "--program", out, "--out", os.path.join(tmp, f"{name}.results"),
                                "--quiet"], capture_output=True, text=True, timeout=300)
            lacks = meta["unsupported"]
            if lacks:
                assert r.returncode == 4 and f"unknown primitive '{lacks[0]}'" in r.stderr, \
                    f"{name}: exit {r.returncode}\n{r.stderr[-2000:]}"
                print(f"ok   tandem refuses {name}: {r.stderr.strip().splitlines()[0][:160]}...")
            else:
                assert r.returncode in (0, 1) and "program JSON" not in r.stderr, \
                    f"{name}: tandem check --program exit {r.returncode}\n{(r.stdout + r.stderr)[-2000:]}"
                print(f"ok   tandem reads and checks {name} (exit {r.returncode})")


def main(argv):
    tandem = argv[0] if argv else None
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    if tandem_reads_programs(tandem):
        tests.append(lambda: check_with_tandem(tandem))
    else:
        print(f"skip: tandem reading the exports ({tandem or 'no binary given'} has no `check --program`)")
    failed = 0
    for t in tests:
        try:
            t()
        except AssertionError as e:
            failed += 1
            print(f"FAIL {t.__name__ if t.__name__ != '<lambda>' else 'tandem check --program'}: {e}")
    print(f"\n{len(tests)} tests, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
