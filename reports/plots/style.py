# Shared plot plumbing: a titled, labelled figure on the Agg backend; log axes when values
# span decades; byte-size tick labels; atomic PNG saving. Every plot goes through here.
import math
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

from reports import atomic  # noqa: E402


@dataclass
class Plot:
    file: str  # PNG name inside the report folder
    title: str
    caption: str = ""


def figure(title, xlabel, ylabel, size=(8.5, 5.0), ncols=1, width_ratios=None):
    fig, axes = plt.subplots(1, ncols, figsize=size, squeeze=False, width_ratios=width_ratios)
    axes = list(axes[0])
    for ax in axes:
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
    fig.suptitle(title)
    return fig, (axes if ncols > 1 else axes[0])


def spans_decades(values, decades=1.5):
    pos = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return len(pos) >= 2 and max(pos) / min(pos) >= 10**decades


def auto_log(ax, axis, values):
    """Log scale on `axis` ('x' or 'y') when the positive values span more than 1.5 decades."""
    if spans_decades(values):
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        return True
    return False


def time_unit(seconds):
    """(scale, unit) that shows these durations (in s) with numbers between 1 and 1000."""
    pos = sorted(v for v in seconds if v and v > 0 and math.isfinite(v))
    mid = pos[len(pos) // 2] if pos else 1.0
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if mid >= scale:
            return scale, unit
    return 1e-9, "ns"


def human_bytes(v, _pos=None):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(v) < 1024 or unit == "TiB":
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.3g} {unit}"
        v /= 1024.0
    return str(v)


def bytes_axis(ax, axis="x", base=2):
    """Log2 (or log10) axis with byte-size tick labels."""
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
    which = ax.xaxis if axis == "x" else ax.yaxis
    which.set_major_locator(LogLocator(base=base, numticks=6))  # every power of 2 would overlap
    which.set_major_formatter(FuncFormatter(human_bytes))


def floor_positive(values, floor=None):
    """Log axes can't show 0, inf or NaN: zeros go to a floor below the smallest positive
    value, non-finite values to a ceiling above the largest; returns (values, floor, ceiling)."""
    fin = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    floor = floor or (min(fin) / 10 if fin else 1e-18)
    ceiling = max(fin) * 10 if fin else 10.0
    out = [ceiling if v is None or not math.isfinite(v) else (v if v > 0 else floor) for v in values]
    return out, floor, ceiling


def colors(n):
    """n distinguishable colours: tab10 up to ten series, tab20 beyond."""
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def legend(ax, n_entries, title=None):
    if n_entries:
        ax.legend(fontsize="small", title=title, loc="best", ncol=1 if n_entries <= 8 else 2)


def save(fig, out_dir, name, title, caption="", rect=None):
    """`rect`: the part of the figure the axes may fill (room below for a figure legend)."""
    fig.tight_layout(rect=rect)
    atomic.save_figure(fig, f"{out_dir}/{name}")
    plt.close(fig)
    return Plot(name, title, caption)


def safe_name(text):
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(text)).strip("_") or "x"
