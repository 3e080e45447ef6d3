# Timings of one CPU model say nothing of another's, and the kernels pick their code per CPU
# (the vector clones, oneDNN's ISA, OpenBLAS's core type: the record context's "isa"), so the
# gate refuses a baseline recorded on another CPU unless told to compare across CPUs.
import sys

from reports import exit_codes

FIELDS = ("cpu_model", "isa")
HINT = ("gate against a baseline recorded on this CPU (`tandem baseline refresh` from a trusted run here, or "
        "--machine-kind naming this machine's kind); or pass --allow-cross-cpu to compare anyway (a warning then)")


class CrossCpu(exit_codes.TandemError):
    code = exit_codes.INCOMPLETE


def differences(base_ctx, cur_ctx):
    """["field: baseline → current"] over the CPU fields both contexts carry; a field one lacks
    (a baseline written before the ISA was recorded) cannot be compared and is not a difference."""
    b, c = base_ctx if isinstance(base_ctx, dict) else {}, cur_ctx if isinstance(cur_ctx, dict) else {}
    return [f"{k}: {b[k]} → {c[k]}" for k in FIELDS if k in b and k in c and b[k] != c[k]]


def check(base_recs, cur_recs, allow, base_path):
    """Raises CrossCpu (exit 6) when the baseline's CPU model or ISA differs from the current
    run's; with `allow`, warns on stderr instead. Returns the differences."""
    ctx = lambda recs: (recs[0].get("context") if recs else None) or {}
    diffs = differences(ctx(base_recs), ctx(cur_recs))
    if not diffs:
        return diffs
    what = "; ".join(diffs)
    if not allow:
        raise CrossCpu(f"the baseline {base_path} was recorded on another CPU or ISA than this run ({what}): "
                       "its timings are not comparable", HINT)
    print(f"warning: comparing across CPUs (--allow-cross-cpu): {what}", file=sys.stderr)
    return diffs


def banner(diffs):
    """The summary's first lines when the gate compared across CPUs, else ""."""
    return f"> **Compared across CPUs** (--allow-cross-cpu): {'; '.join(diffs)}\n\n" if diffs else ""
