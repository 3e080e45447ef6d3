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
    "not": lax.bitwise_not,  # bool or i32 (engine/prims/bitwise_ops.def)
}
# Operands of one dtype; a rank-0 one broadcasts (program_vs_jax.py's binary() does it for lax).
BINARY = {
    "add": lax.add, "sub": lax.sub, "mul": lax.mul, "div": lax.div, "max": lax.max, "min": lax.min,
    "rem": lax.rem, "pow": lax.pow,
    "and": lax.bitwise_and, "or": lax.bitwise_or, "xor": lax.bitwise_xor,  # bool or i32 (bitwise_ops.def)
}
# Reductions over the param "axes" (tandem takes negative ones, as jnp; lax's take them normalized).
REDUCTIONS = {
    "reduce_sum": lax.reduce_sum, "reduce_max": lax.reduce_max, "reduce_min": lax.reduce_min,
    "reduce_prod": lax.reduce_prod, "reduce_and": lax.reduce_and, "reduce_or": lax.reduce_or,
}
# lax.argmax / argmin over one axis of "axes"; tandem's index_dtype is i32.
ARGS = {"argmax": lax.argmax, "argmin": lax.argmin}


def rounding_name(method):
    """lax.round's rounding_method (a lax.RoundingMethod, an IntEnum) as tandem's string."""
    return lax.RoundingMethod(int(method)).name


def rounding_method(name):
    return lax.RoundingMethod[name]
