#!/usr/bin/env python3
"""The XLA side of program_vs_xla.py, one process per thread setting (its environment and CPU
mask fixed at start, as XLA reads them once): per request line {"source": FILE, "min_time": S}
it loads FILE's `function` and `example_args()` (the inputs the export wrote), jits the
forward and the vjp with a ones cotangent, warms both, and answers {"forward": s, "gradient":
s}, each the mean seconds per call over at least S seconds; {"error": ...} when it cannot.
"""
import importlib.util
import json
import sys
import time

import jax
import jax.numpy as jnp


def load(path):
    spec = importlib.util.spec_from_file_location("scaled", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def mean_seconds(fn, args, min_time):
    jax.block_until_ready(fn(*args))  # compile and warm
    jax.block_until_ready(fn(*args))
    n, start = 0, time.perf_counter()
    while True:
        jax.block_until_ready(fn(*args))
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / n


COMPILED = {}  # source -> (forward, gradient, args): traced and compiled once, not every round


def compiled(source):
    if source not in COMPILED:
        mod = load(source)
        args = mod.example_args()
        forward = jax.jit(mod.function)
        ct = jax.tree_util.tree_map(jnp.ones_like, forward(*args))
        COMPILED[source] = (forward, jax.jit(lambda *a: jax.vjp(mod.function, *a)[1](ct)), args)
    return COMPILED[source]


def timings(source, min_time):
    forward, gradient, args = compiled(source)
    return {"forward": mean_seconds(forward, args, min_time),
            "gradient": mean_seconds(gradient, args, min_time)}


def main():
    for line in sys.stdin:
        req = json.loads(line)
        try:
            reply = timings(req["source"], req["min_time"])
        except Exception as e:  # noqa: BLE001 - reported to the driver, which stops
            reply = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
