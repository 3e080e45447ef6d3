"""Dead-code elimination of a Program JSON (docs/PROGRAM_JSON.md) at import: an equation none
of whose results is used is dropped, inside scan and checkpoint bodies too, so a program is
not refused for a primitive only a discarded value needs (jax.experimental.rnn.lstm_ref
gathers the final carries a loss over its outputs never reads). A scan keeps its carries (the
loop's signature) but loses the stacked outputs nobody reads, and with them their per-step
computation; a checkpoint loses its unused outputs. JAX's own results are taken from the
function, so nothing the user sees changes.

    eliminate_dead(program)   # in place; returns the number of equations dropped
"""


def _ids(atoms):
    return {a["var"] for a in atoms if "var" in a}


def _prune_body(e, keep_out):
    """Keeps the outputs of equation e (and of its body) flagged in keep_out; DCE in the body."""
    body = e["params"]["body"]["program"]
    e["out"] = [o for o, k in zip(e["out"], keep_out) if k]
    body["outvars"] = [a for a, k in zip(body["outvars"], keep_out) if k]
    return _eliminate(body)


def _scan(e, live):
    nk = int(e["params"]["num_carry"])
    used = [o["id"] in live for o in e["out"]]
    if not any(used):
        return None, 0
    return e, _prune_body(e, [True] * nk + used[nk:])  # the carries stay: they are the loop


def _checkpoint(e, live):
    used = [o["id"] in live for o in e["out"]]
    if not any(used):
        return None, 0
    return e, _prune_body(e, used)


# Equations with a body whose outputs can be dropped one by one; any other equation is kept whole or dropped whole.
BODIES = {"scan": _scan, "checkpoint": _checkpoint}


def _eliminate(program):
    live, kept, dropped = _ids(program["outvars"]), [], 0
    for e in reversed(program["eqns"]):
        if e["primitive"] in BODIES:
            e, inner = BODIES[e["primitive"]](e, live)
            dropped += inner
        elif not any(o["id"] in live for o in e["out"]):
            e = None
        if e is None:
            dropped += 1
            continue
        kept.append(e)
        live |= _ids(e["in"])
    program["eqns"] = kept[::-1]
    return dropped


def eliminate_dead(program):
    """Drops the dead equations of a program JSON and of its bodies, in place; returns how many."""
    return _eliminate(program)
