#!/usr/bin/env python3
"""Which everyday JAX functions `tandem import` can write as tandem primitives: each function of
EVERYDAY is traced with jax.make_jaxpr on small inputs and converted by the importer
(tools/import/jaxpr_to_program.py); what it lacks is the JAX primitives written that tandem
refuses. The table is generated, never hand-kept:

    tools/import/everyday_table.py [--update docs/IMPORT_CORPUS.md | --check docs/IMPORT_CORPUS.md]

Exit 0 written (or the page agrees), 1 the page's table differs (--check), 4 bad usage,
77 JAX is not installed.
"""
import argparse
import os
import sys

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError as missing:
    print(f"skip: {missing} (for {sys.executable})\n  hint: ci/python_env.sh installs JAX", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_table  # noqa: E402
import jaxpr_to_program as j2p  # noqa: E402

TABLE = "everyday-table"
X = jnp.linspace(-2.0, 2.0, 12, dtype=jnp.float32).reshape(3, 4)
LABELS = jnp.array([0, 3, 1], jnp.int32)
KEYS = jnp.array([2, 0, 1], jnp.int32)

# (group, what a user writes, the function of X): one row per everyday function.
EVERYDAY = [
    ("activations", "jax.nn.relu", jax.nn.relu),
    ("activations", "jax.nn.gelu (tanh approximation)", jax.nn.gelu),
    ("activations", "jax.nn.gelu(approximate=False)", lambda x: jax.nn.gelu(x, approximate=False)),
    ("activations", "jax.nn.silu / swish", jax.nn.silu),
    ("activations", "jax.nn.sigmoid", jax.nn.sigmoid),
    ("activations", "jax.nn.softplus", jax.nn.softplus),
    ("activations", "jax.nn.log_sigmoid", jax.nn.log_sigmoid),
    ("activations", "jax.nn.elu", jax.nn.elu),
    ("activations", "jax.nn.leaky_relu", jax.nn.leaky_relu),
    ("activations", "jax.nn.hard_tanh", jax.nn.hard_tanh),
    ("activations", "jnp.tanh", jnp.tanh),
    ("normalisation", "jax.nn.softmax", jax.nn.softmax),
    ("normalisation", "jax.nn.log_softmax", jax.nn.log_softmax),
    ("normalisation", "jax.nn.logsumexp", jax.nn.logsumexp),
    ("normalisation", "jax.nn.standardize (layer norm)", jax.nn.standardize),
    ("normalisation", "x * lax.rsqrt(mean(x**2) + eps) (RMS norm)",
     lambda x: x * lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6)),
    ("normalisation", "jnp.linalg.norm", jnp.linalg.norm),
    ("reductions", "jnp.sum / jnp.mean", lambda x: jnp.mean(x, 0) + jnp.sum(x, 0)),
    ("reductions", "jnp.max", lambda x: jnp.max(x, -1)),
    ("reductions", "jnp.min", lambda x: jnp.min(x, -1)),
    ("reductions", "jnp.var / jnp.std", lambda x: jnp.var(x, 0) + jnp.std(x, 0)),
    ("reductions", "jnp.prod", lambda x: jnp.prod(x, 0)),
    ("reductions", "jnp.argmax", lambda x: jnp.argmax(x, -1)),
    ("reductions", "jnp.cumsum", lambda x: jnp.cumsum(x, 0)),
    ("reductions", "jnp.any / jnp.all", lambda x: jnp.any(x > 0) & jnp.all(x > -3)),
    ("indexing", "x[i] (integer array)", lambda x: x[KEYS]),
    ("indexing", "jnp.take_along_axis", lambda x: jnp.take_along_axis(x, LABELS[:, None], axis=1)),
    ("indexing", "jax.nn.one_hot(labels) @ W", lambda x: jax.nn.one_hot(LABELS, 4) @ x.T),
    ("indexing", "x.at[i].add(v)", lambda x: x.at[KEYS].add(1.0)),
    ("indexing", "x[1:, ::2], jnp.concatenate, reshape, transpose",
     lambda x: jnp.concatenate([x[1:, ::2], x[:2, 1::2]], 0).reshape(-1, 2).T),
    ("indexing", "jnp.where", lambda x: jnp.where(x > 0, x, 0.5 * x)),
    ("indexing", "jnp.flip", lambda x: jnp.flip(x, 0)),
    ("indexing", "jnp.pad", lambda x: jnp.pad(x, ((1, 0), (0, 2)))),
    ("indexing", "jnp.sort / jnp.argsort", lambda x: jnp.sort(x, -1) + jnp.argsort(x, -1)),
    ("indexing", "jnp.clip", lambda x: jnp.clip(x, -1.0, 1.0)),
    ("elementwise", "jnp.abs, jnp.sign", lambda x: jnp.abs(x) * jnp.sign(x)),
    ("elementwise", "jnp.exp, jnp.log, jnp.log1p, jnp.expm1",
     lambda x: jnp.exp(x) + jnp.log(x * x + 1) + jnp.log1p(x * x) + jnp.expm1(x)),
    ("elementwise", "x ** 2, x ** 0.5, x ** y", lambda x: x ** 2 + jnp.abs(x) ** 0.5 + jnp.abs(x) ** x),
    ("elementwise", "jnp.floor, jnp.round", lambda x: jnp.floor(x) + jnp.round(x)),
    ("elementwise", "jnp.isnan / jnp.isfinite", lambda x: jnp.isnan(x) | jnp.isfinite(x)),
    ("elementwise", "x % y", lambda x: x % 1.5),
    ("linear algebra", "x @ w, jnp.einsum", lambda x: jnp.einsum("ij,kj->ik", x, x) @ x),
    ("control flow", "lax.scan", lambda x: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(4), x)[1]),
    ("control flow", "lax.fori_loop (static bounds)", lambda x: lax.fori_loop(0, 3, lambda i, c: c * 0.5 + 1.0, x)),
    ("control flow", "lax.while_loop", lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 0.5), (0, x))[1]),
    ("control flow", "lax.cond", lambda x: lax.cond(x[0, 0] > 0, jnp.sin, jnp.cos, x)),
    ("control flow", "jax.checkpoint with a policy",
     jax.checkpoint(lambda x: jnp.sin(x @ x.T), policy=jax.checkpoint_policies.dots_saveable)),
    ("convolution", "lax.conv_general_dilated",
     lambda x: lax.conv_general_dilated(x[None, None], jnp.ones((2, 1, 2, 2)), (1, 1), "SAME")),
    ("convolution", "max / average pooling (lax.reduce_window)",
     lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID")),
]


def lacks(fn):
    """The JAX primitives of fn(X) the importer writes that tandem does not have, sorted."""
    _, _, unsupported = j2p.convert(jax.make_jaxpr(fn)(X))
    return sorted(unsupported)


def table():
    rows = [(group, what, lacks(fn)) for group, what, fn in EVERYDAY]
    ok = sum(1 for _, _, missing in rows if not missing)
    lines = [f"{ok} of {len(rows)} everyday functions import.", "",
             "| group | function | imports | JAX primitives tandem lacks |", "|---|---|---|---|"]
    for group, what, missing in rows:
        lines.append(f"| {group} | `{what}` | {'no' if missing else 'yes'} | "
                     f"{', '.join(f'`{m}`' for m in missing)} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--update", metavar="PAGE")
    mode.add_argument("--check", metavar="PAGE")
    a = ap.parse_args()
    doc_table.require(a.update or a.check, TABLE)
    text = table()
    print(text, end="")
    if a.update:
        doc_table.update(a.update, TABLE, text)
    if a.check and doc_table.differs(a.check, TABLE, text, f"tools/import/everyday_table.py --update {a.check}"):
        sys.exit(1)


if __name__ == "__main__":
    main()
