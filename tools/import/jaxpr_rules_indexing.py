"""The importer's rows (tools/import/jaxpr_to_program.py's RULES) of JAX's indexing and window
primitives: gather, scatter-add and scatter with their dimension numbers and mode spelt out,
and reduce_window_max / reduce_window_sum's params."""
import math


def ints(v):
    return [int(x) for x in v]


def index_mode(mode):
    """A GatherScatterMode (or what JAX's from_any takes) as tandem's mode string."""
    from jax._src.lax.slicing import GatherScatterMode
    return GatherScatterMode.from_any(mode).name


def gather(scope, e):
    """gather with JAX's GatherDimensionNumbers spelt out; a NaN or absent fill_value is the
    default tandem applies itself (NaN for floats, the lowest int, True)."""
    p, dn = e.params, e.params["dimension_numbers"]
    params = {"offset_dims": ints(dn.offset_dims), "collapsed_slice_dims": ints(dn.collapsed_slice_dims),
              "start_index_map": ints(dn.start_index_map), "operand_batching_dims": ints(dn.operand_batching_dims),
              "start_indices_batching_dims": ints(dn.start_indices_batching_dims),
              "slice_sizes": ints(p["slice_sizes"]), "indices_are_sorted": bool(p["indices_are_sorted"]),
              "unique_indices": bool(p["unique_indices"]), "mode": index_mode(p["mode"])}
    fill = p.get("fill_value")
    if fill is not None and not (isinstance(fill, float) and math.isnan(fill)):
        params["fill_value"] = float(fill)
    scope.emit(e, "gather", [scope.atom(a) for a in e.invars], params)


def scatter_to(name):
    """scatter-add (x.at[i].add(u), its update_jaxpr the add) as tandem's scatter_add, scatter
    (x.at[i].set(u)) as tandem's scatter: the same dimension numbers and mode."""
    return lambda scope, e: scatter_row(scope, e, name)


def scatter_row(scope, e, name):
    p, dn = e.params, e.params["dimension_numbers"]
    scope.emit(e, name, [scope.atom(a) for a in e.invars], {
        "update_window_dims": ints(dn.update_window_dims), "inserted_window_dims": ints(dn.inserted_window_dims),
        "scatter_dims_to_operand_dims": ints(dn.scatter_dims_to_operand_dims),
        "operand_batching_dims": ints(dn.operand_batching_dims),
        "scatter_indices_batching_dims": ints(dn.scatter_indices_batching_dims),
        "indices_are_sorted": bool(p["indices_are_sorted"]), "unique_indices": bool(p["unique_indices"]),
        "mode": index_mode(p["mode"])})


def window_params(p):
    """reduce_window_max / _sum's params: padding flattened to (lo, hi) per dim, as conv's."""
    return {"window_dimensions": ints(p["window_dimensions"]), "window_strides": ints(p["window_strides"]),
            "padding": [int(x) for pair in p["padding"] for x in pair], "base_dilation": ints(p["base_dilation"]),
            "window_dilation": ints(p["window_dilation"])}
