#!/usr/bin/env python3
"""Dead-code elimination at import (tools/import/program_dce.py): an equation whose results
nothing uses is not written, at the top, in a scan body (a scan keeps its carries but loses
its unused stacked outputs and their per-step work) and in a checkpoint body, so a primitive
only a discarded value needs (here cumsum, which tandem lacks) is neither written nor listed
as unsupported. Exit 77 without JAX."""
import os
import sys

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError as missing:
    print(f"skip: {missing}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jaxpr_to_program as j2p  # noqa: E402


def convert(f, *args):
    return j2p.convert(jax.make_jaxpr(f)(*args))


def prims(program):
    return [e["primitive"] for e in j2p.all_eqns(program)]


def test_top_level_dead_equation():
    def f(x):
        jnp.cumsum(x)  # computed, never used
        unused = jnp.exp(x)  # noqa: F841
        return jnp.sin(x)
    program, _, unsupported = convert(f, jnp.ones(4))
    assert prims(program) == ["sin"], prims(program)
    assert unsupported == {}, unsupported


def test_scan_loses_unused_outputs_keeps_carries():
    def f(x):
        def step(c, xi):
            return c + jnp.sin(xi), (jnp.cumsum(xi), c * 2.0)
        final, (sums, doubled) = lax.scan(step, jnp.zeros(3), x)
        return final, doubled
    program, _, unsupported = convert(f, jnp.ones((5, 3)))
    scan, = [e for e in program["eqns"] if e["primitive"] == "scan"]
    body = scan["params"]["body"]["program"]
    assert scan["params"]["num_carry"] == 1 and len(scan["out"]) == 2 == len(body["outvars"]), scan["out"]
    assert "cumsum" not in prims(program) and unsupported == {}, (prims(program), unsupported)
    assert [o["shape"] for o in scan["out"]] == [[3], [5, 3]], scan["out"]


def test_scan_with_only_dead_results_is_dropped():
    def f(x):
        lax.scan(lambda c, xi: (c + jnp.cumsum(xi), None), jnp.zeros(3), x)
        return jnp.cos(x)
    program, _, unsupported = convert(f, jnp.ones((5, 3)))
    assert prims(program) == ["cos"] and unsupported == {}, (prims(program), unsupported)


def test_checkpoint_loses_unused_outputs():
    def f(x):
        a, b = jax.checkpoint(lambda x: (jnp.sin(x), jnp.cumsum(x)))(x)
        return a
    program, _, unsupported = convert(f, jnp.ones(4))
    cp, = [e for e in program["eqns"] if e["primitive"] == "checkpoint"]
    assert len(cp["out"]) == 1 == len(cp["params"]["body"]["program"]["outvars"]), cp["out"]
    assert "cumsum" not in prims(program) and unsupported == {}, (prims(program), unsupported)


def main():
    failed = 0
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    for t in tests:
        try:
            t()
            print(f"ok   {t.__name__}")
        except AssertionError as e:
            failed += 1
            print(f"FAIL {t.__name__}: {e}")
    print(f"{len(tests)} tests, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
