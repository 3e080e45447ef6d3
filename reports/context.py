# A record's run context split in two: history-breaking fields (a change there changes what
# is measured — toolchain, libraries, hardware, rank count — so history starts a new segment
# and the gate warns) and informational ones (git sha, host, ...), which never break history.
import platform
import re

# The toolchain and libraries named in the design, plus the parallel shape of the run (ranks,
# BLAS threads, and which library runs the engine's f32 products), which changes timings as surely as a new compiler does.
BREAKING = ("compiler", "build_type", "blas", "blas_threads", "sgemm", "cuda_runtime", "cuda_driver",
            "cudnn", "nccl", "mpi", "gpu", "ranks")


def split(ctx):
    """(breaking, informational) dicts from a record's context."""
    ctx = ctx if isinstance(ctx, dict) else {}
    breaking = {k: ctx[k] for k in BREAKING if k in ctx}
    info = {k: v for k, v in ctx.items() if k not in BREAKING}
    return breaking, info


def differences(a, b):
    """["field: old → new"] over the history-breaking fields of two contexts."""
    ba, bb = split(a)[0], split(b)[0]
    return [f"{k}: {ba.get(k, '—')} → {bb.get(k, '—')}" for k in BREAKING if ba.get(k) != bb.get(k)]


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "unknown"


def machine_kind(ctx):
    """A default baseline name for the machine that wrote `ctx`: the GPU model, else the CPU
    architecture and thread count. CI should name its machine kind explicitly instead."""
    ctx = ctx if isinstance(ctx, dict) else {}
    if ctx.get("gpu"):
        return slug(ctx["gpu"])
    threads = ctx.get("cpu_threads")
    return slug(f"cpu-{platform.machine()}" + (f"-{threads}t" if threads else ""))
