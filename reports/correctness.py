# The correctness table: per record its verdict and its worst output check (max abs, max rel,
# error over tolerance), shared by the HTML report, summary.md and the gate's summary.
import math

from reports.records import checks, num


def worst_check(rec):
    """(name, report) of the worst check: failed ones first, then by error over tolerance."""
    def key(item):
        ratio = num(item[1].get("error_over_tolerance"))
        ratio = -1.0 if ratio is None else (math.inf if math.isnan(ratio) else ratio)
        return (item[1].get("pass") is False, ratio)

    found = checks(rec)
    return max(found, key=key) if found else (None, None)


def fmt(v, digits=3):
    x = num(v)
    if x is None:
        return "" if v is None else str(v)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    return f"{x:.{digits}g}"


def tolerance_text(rep):
    tol = rep.get("tolerance") if rep else None
    if not isinstance(tol, dict):
        return ""
    parts = [f"{k} {fmt(tol[k])}" for k in ("abs", "rel", "scaled") if num(tol.get(k))]
    return ", ".join(parts) or "exact"


def row(rec):
    """A dict of display strings for one record."""
    name, rep = worst_check(rec)
    rep = rep or {}
    return {
        "case": rec["case"],
        "verdict": rec["verdict"],
        "check": name or "",
        "max_abs": fmt(rep.get("max_abs")),
        "max_rel": fmt(rep.get("max_rel")),
        "error/tol": fmt(rep.get("error_over_tolerance")),
        "headroom": fmt(rep.get("headroom")),
        "tolerance": tolerance_text(rep),
        "message": " ".join(str(rec.get("message") or "").split())[:200],
    }


COLUMNS = ["case", "verdict", "check", "max_abs", "max_rel", "error/tol", "headroom", "tolerance", "message"]


def markdown_table(rows, columns=COLUMNS):
    def cell(s):
        return str(s).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c, "")) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def verdict_counts(recs):
    counts = {"pass": 0, "fail": 0, "skip": 0, "error": 0}
    for r in recs:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return counts
