"""The JAX calls of tandem's contractions for tools/oracles/program_vs_jax.py, from their
program.json params at their precision (the wide run: HIGHEST, in f64): dot_general and
conv_general_dilated."""
from jax import lax

from jax_common import dtype_of


def precision_of(name, wide):
    """DEFAULT/HIGH/HIGHEST as lax.Precision, a DotAlgorithm preset as lax.DotAlgorithmPreset
    (JAX takes either in `precision`). The wide run computes exactly: HIGHEST in f64."""
    if wide or name == "HIGHEST":
        return lax.Precision.HIGHEST
    if name in ("DEFAULT", "HIGH"):
        return lax.Precision[name]
    return lax.DotAlgorithmPreset[name]


def eval_dot(x, y, p, w):
    pet = p.get("preferred_element_type")
    return [lax.dot_general(
        x, y, ((p["lhs_contracting_dimensions"], p["rhs_contracting_dimensions"]),
               (p["lhs_batch_dimensions"], p["rhs_batch_dimensions"])),
        precision=precision_of(p.get("precision", "DEFAULT"), w),
        preferred_element_type=dtype_of(pet["dtype"], w) if pet else None)]


def eval_conv(x, y, p, w):
    pet = p.get("preferred_element_type")
    pad = p["padding"]
    return [lax.conv_general_dilated(
        x, y, p["window_strides"], [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)],
        lhs_dilation=p["lhs_dilation"], rhs_dilation=p["rhs_dilation"],
        dimension_numbers=lax.ConvDimensionNumbers(tuple(p["lhs_spec"]), tuple(p["rhs_spec"]), tuple(p["out_spec"])),
        feature_group_count=p["feature_group_count"], batch_group_count=p["batch_group_count"],
        precision=precision_of(p.get("precision", "DEFAULT"), w),
        preferred_element_type=dtype_of(pet["dtype"], w) if pet else None)]
