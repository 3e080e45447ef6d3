# Baselines versioned in the repository, one per machine kind:
# reports/baselines/<machine-kind>/records.json. `baseline refresh RECORDS` validates a
# records file (JSON Schema, complete run) and installs it there atomically; `baseline show` prints the resolved path.
import os
import sys
from pathlib import Path

from reports import atomic, context, records, run_completion
from reports.exit_codes import PASS, BadInput

ROOT = Path(__file__).resolve().parent / "baselines"


def resolve_kind(kind=None, recs=None):
    kind = kind or os.environ.get("TANDEM_MACHINE_KIND")
    if kind:
        if context.slug(kind) != kind:
            raise BadInput(f"machine kind {kind!r} is not a plain name", "use lower-case letters, digits and dashes, e.g. nvidia-h100")
        return kind
    if recs:
        return context.machine_kind(recs[0].get("context"))
    raise BadInput("no machine kind given", "pass --machine-kind KIND or set TANDEM_MACHINE_KIND")


def path_for(kind, root=None):
    return Path(root or ROOT) / kind / "records.json"


def require(path):
    if not os.path.lexists(path):  # anything else at the name (a FIFO, a dangling link) records.load names
        raise BadInput(f"baseline not found: {path}",
                       "create it with `tandem baseline refresh RECORDS --machine-kind KIND`, or pass --baseline FILE")
    return path


def refresh(args):
    doc, recs = records.load_document(args.records)  # validated against record.schema.json first
    if not recs:
        raise BadInput(f"{args.records}: no records to make a baseline of", "run the quick profile first")
    unfinished = run_completion.problem(args.records, doc, recs)
    if unfinished:  # a partial baseline would make every later gate pass on the cases it lacks
        raise BadInput(f"not installing a baseline from an incomplete run: {unfinished}",
                       "refresh from the records.json a finished `tandem run` left beside its summary.md")
    kind = resolve_kind(args.machine_kind, recs)
    failed = [r["case"] for r in recs if r["verdict"] in records.FAILED]
    if failed:
        print(f"warning: {len(failed)} case(s) failed in this baseline, e.g. {failed[0]}", file=sys.stderr)
    dest = path_for(kind, args.root)
    with atomic.file_lock(dest, "baseline refresh"):  # one writer per folder, as a run's --out
        atomic.write_bytes(dest, Path(args.records).read_bytes())
    print(f"baseline for {kind}: {dest} ({len(recs)} records); commit it to version it")
    return PASS


def show(args):
    recs = records.load(args.records) if args.records else None
    kind = resolve_kind(args.machine_kind, recs)
    dest = path_for(kind, args.root)
    print(f"{kind}\t{dest}\t{'present' if dest.is_file() else 'missing'}")
    return PASS
