# Did the run that wrote a records file complete? `tandem run` rewrites records.json after every case and writes
# summary.md (with the verdict counts) only once all cases are done, so a run killed mid-way leaves valid but partial
# records, possibly beside an earlier run's summary. Evidence, strongest first:
#   1. a top-level "complete": true|false in the records file (written by a tandem that says so);
#   2. summary.md beside records.json: its counts must match the records, and it must not be
#      older than the records (a killed run leaves the previous run's summary behind);
#   3. no summary.md at all: the run cannot be shown to have completed, so it counts as not.
import re
from pathlib import Path

SUMMARY_COUNTS = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped, (\d+) errors")
MTIME_SLACK_S = 2.0  # summary.md is written after the last records write; copies may reorder by a little


def counts(recs):
    return tuple(sum(r["verdict"] == v for r in recs) for v in ("pass", "fail", "skip", "error"))


def problem(path, doc, recs):
    """None when the run completed, else one sentence saying why it is known (or not shown) not to."""
    path = Path(path)
    flag = doc.get("complete") if isinstance(doc, dict) else None
    if flag is True:
        return None
    if flag is False:
        return f"{path} says the run did not complete (\"complete\": false)"
    summary = path.parent / "summary.md"
    if not summary.is_file():
        return f"no summary.md beside {path}: the run that wrote it did not finish (or the records were moved alone)"
    try:
        text = summary.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return f"cannot read {summary} ({e})"
    m = SUMMARY_COUNTS.search(text)
    if not m:
        return f"{summary} has no verdict counts line; it was not written by `tandem run`"
    said, have = tuple(int(x) for x in m.groups()), counts(recs)
    if said != have:
        return (f"{summary} counts {sum(said)} cases ({said[0]} passed, {said[1]} failed, {said[2]} skipped, "
                f"{said[3]} errors) but {path.name} holds {sum(have)} ({have[0]}/{have[1]}/{have[2]}/{have[3]}): "
                "the run was killed mid-way and the summary is an earlier run's")
    if summary.stat().st_mtime + MTIME_SLACK_S < path.stat().st_mtime:
        return f"{summary} is older than {path.name}: the run that last wrote the records did not finish"
    return None
