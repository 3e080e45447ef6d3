"""tandem's unary and binary elementwise primitives as JAX has them: one row each, tandem's
name -> the jax.lax function. JAX's primitive of each has the same name, so the table serves
both sides of the JAX bridge: the oracle (tools/oracles/program_vs_jax.py) evaluates the row's
function, and the importer (tools/import/jaxpr_to_program.py) writes an equation of that JAX
primitive as tandem's. A row of engine/prims/unary_ops.def or binary_ops.def is one row here
(docs/DESIGN.md "How to add a primitive").
"""
from jax import lax

UNARY = {
    "neg": lax.neg, "exp": lax.exp, "log": lax.log, "sin": lax.sin, "cos": lax.cos,
    "tanh": lax.tanh, "logistic": lax.logistic, "sqrt": lax.sqrt, "erf": lax.erf,
    "stop_gradient": lax.stop_gradient, "expm1": lax.expm1,
    "abs": lax.abs, "sign": lax.sign, "rsqrt": lax.rsqrt, "log1p": lax.log1p, "erfc": lax.erfc,
    "floor": lax.floor,
}
# Operands of one dtype; a rank-0 one broadcasts (program_vs_jax.py's binary() does it for lax).
BINARY = {
    "add": lax.add, "sub": lax.sub, "mul": lax.mul, "div": lax.div, "max": lax.max, "min": lax.min,
}
