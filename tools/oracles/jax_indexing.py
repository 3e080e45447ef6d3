"""tandem's gather, scatter_add and sort as JAX's lax calls, for tools/oracles/program_vs_jax.py's
RULES: the params are JAX's GatherDimensionNumbers / ScatterDimensionNumbers fields, the mode a
GatherScatterMode name, a fill_value a number (or {"float": "nan"|"inf"|"-inf"}).
"""
from jax import lax


def index_mode(p):
    return lax.GatherScatterMode[p.get("mode", "PROMISE_IN_BOUNDS")]


def eval_gather(x, i, p, w):
    dn = lax.GatherDimensionNumbers(
        offset_dims=tuple(p["offset_dims"]), collapsed_slice_dims=tuple(p["collapsed_slice_dims"]),
        start_index_map=tuple(p["start_index_map"]), operand_batching_dims=tuple(p.get("operand_batching_dims", ())),
        start_indices_batching_dims=tuple(p.get("start_indices_batching_dims", ())))
    fill = p.get("fill_value")
    fill = float(fill["float"]) if isinstance(fill, dict) else fill
    return [lax.gather(x, i, dn, tuple(p["slice_sizes"]), mode=index_mode(p), fill_value=fill,
                       indices_are_sorted=p.get("indices_are_sorted", False),
                       unique_indices=p.get("unique_indices", False))]


def eval_scatter_add(x, i, u, p, w):
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=tuple(p["update_window_dims"]), inserted_window_dims=tuple(p["inserted_window_dims"]),
        scatter_dims_to_operand_dims=tuple(p["scatter_dims_to_operand_dims"]),
        operand_batching_dims=tuple(p.get("operand_batching_dims", ())),
        scatter_indices_batching_dims=tuple(p.get("scatter_indices_batching_dims", ())))
    return [lax.scatter_add(x, i, u, dn, mode=index_mode(p), indices_are_sorted=p.get("indices_are_sorted", False),
                            unique_indices=p.get("unique_indices", False))]


def eval_sort(*xs, p, w):
    return list(lax.sort_p.bind(*xs, dimension=p["dimension"], is_stable=p.get("is_stable", True),
                                num_keys=p.get("num_keys", 1)))
