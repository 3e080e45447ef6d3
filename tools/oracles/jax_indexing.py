"""tandem's gather, scatter_add, scatter, sort and reduce_window_max / _sum as JAX's lax calls, for tools/oracles/program_vs_jax.py's
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


def scatter_dims(p):
    return lax.ScatterDimensionNumbers(
        update_window_dims=tuple(p["update_window_dims"]), inserted_window_dims=tuple(p["inserted_window_dims"]),
        scatter_dims_to_operand_dims=tuple(p["scatter_dims_to_operand_dims"]),
        operand_batching_dims=tuple(p.get("operand_batching_dims", ())),
        scatter_indices_batching_dims=tuple(p.get("scatter_indices_batching_dims", ())))


def eval_scatter_add(x, i, u, p, w):
    return [lax.scatter_add(x, i, u, scatter_dims(p), mode=index_mode(p),
                            indices_are_sorted=p.get("indices_are_sorted", False),
                            unique_indices=p.get("unique_indices", False))]


def eval_scatter(x, i, u, p, w):
    """x.at[i].set(u): where indices repeat XLA keeps an unspecified one (tandem the last)."""
    return [lax.scatter(x, i, u, scatter_dims(p), mode=index_mode(p), indices_are_sorted=p.get("indices_are_sorted", False),
                        unique_indices=p.get("unique_indices", False))]


def eval_sort(*xs, p, w):
    return list(lax.sort_p.bind(*xs, dimension=p["dimension"], is_stable=p.get("is_stable", True),
                                num_keys=p.get("num_keys", 1)))


def window_params(p, ndim):
    """reduce_window's params as JAX binds them: padding back to (lo, hi) pairs."""
    pad = p.get("padding", [0] * (2 * ndim))
    return dict(window_dimensions=tuple(p["window_dimensions"]),
                window_strides=tuple(p.get("window_strides", (1,) * ndim)),
                padding=tuple(zip(pad[0::2], pad[1::2])),
                base_dilation=tuple(p.get("base_dilation", (1,) * ndim)),
                window_dilation=tuple(p.get("window_dilation", (1,) * ndim)))


def eval_reduce_window_max(x, p, w):
    return [lax.reduce_window_max_p.bind(x, **window_params(p, x.ndim))]


def eval_reduce_window_sum(x, p, w):
    return [lax.reduce_window_sum_p.bind(x, **window_params(p, x.ndim))]
