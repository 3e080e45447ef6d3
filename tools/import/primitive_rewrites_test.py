#!/usr/bin/env python3
"""The rewrites the program reader's refusal names (engine/ir/primitive_rewrites.cc), checked
(ctest primitive_rewrites; exit 77, a skip, without JAX): for every row of that table a case
here, whose `original` lowers to the row's JAX primitive (so the refusal is the one a user
meets), whose `rewrite` lowers to primitives tandem has only (the importer finds nothing it
lacks) and equals the original on the case's operand. A row without a case, or a case without
a row, fails.

    tools/import/primitive_rewrites_test.py
"""
import os
import re
import sys

try:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError as missing:
    print(f"SKIP: {missing} (for {sys.executable})", file=sys.stderr)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import jaxpr_to_program as j2p  # noqa: E402

X = np.linspace(0.2, 2.0, 12, dtype=np.float32).reshape(3, 4)[::-1] * np.array([1, -1, 1, 1], np.float32)


# JAX primitive -> (operand, original, rewrite as the table's row words it)
CASES = {
    "cumprod": (X, lambda x: jnp.cumprod(x, axis=0), lambda x: lax.associative_scan(jnp.multiply, x, axis=0)),
    "cummax": (X, lambda x: lax.cummax(x, axis=1), lambda x: lax.associative_scan(jnp.maximum, x, axis=1)),
    "cummin": (X, lambda x: lax.cummin(x, axis=0), lambda x: lax.associative_scan(jnp.minimum, x, axis=0)),
    "clamp": (X, lambda x: lax.clamp(-0.5, x, 1.0), lambda x: jnp.minimum(jnp.maximum(x, -0.5), 1.0)),
    "ceil": (X * 3, jnp.ceil, lambda x: -jnp.floor(-x)),
    "exp2": (X, jnp.exp2, lambda x: jnp.exp(x * np.log(2.0))),
    "tan": (X, jnp.tan, lambda x: jnp.sin(x) / jnp.cos(x)),
}


def table_rows():
    text = open(os.path.join(ROOT, "engine", "ir", "primitive_rewrites.cc")).read()
    return set(re.findall(r'^\s*\{"(\w+)",', text, re.M))


def lacks(f, x):
    return set(j2p.convert(jax.make_jaxpr(f)(x))[2])


def test_every_row_has_a_case():
    rows = table_rows()
    assert rows == set(CASES), f"rows without a case: {sorted(rows - set(CASES))}; cases without a row: {sorted(set(CASES) - rows)}"


def test_rewrites_use_tandem_primitives_and_agree():
    for name, (x, original, rewrite) in sorted(CASES.items()):
        assert name in lacks(original, x), f"{name}: the original lowers to {sorted(lacks(original, x))}"
        assert not lacks(rewrite, x), f"{name}: the rewrite still needs {sorted(lacks(rewrite, x))}"
        want, got = np.asarray(original(x)), np.asarray(rewrite(x))
        assert want.shape == got.shape and np.allclose(want, got, rtol=2e-6, atol=1e-6), f"{name}: {want} vs {got}"
        print(f"ok   {name}: rewritten into tandem's primitives, equal")


def main():
    failed = 0
    for test in (test_every_row_has_a_case, test_rewrites_use_tandem_primitives_and_agree):
        try:
            test()
        except AssertionError as e:
            print(f"FAIL {test.__name__}: {e}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
