# Reading tandem records files ({"schema": "tandem.records/1", "records": [...]}) with clear
# bad-input errors, and small accessors shared by the report, the gate and the history.
import json
import math
from pathlib import Path

from reports import input_file, schema_check
from reports.exit_codes import BadInput

SCHEMA = "tandem.records/1"
VERDICTS = ("pass", "fail", "skip", "error")  # also in record.schema.json
FAILED = ("fail", "error")
REGENERATE = "regenerate it with `tandem run ... --out FILE` from this tandem version"


def load(path):
    """Returns the list of records in `path`; raises BadInput with a hint on any problem."""
    return load_document(path)[1]


def load_document(path):
    """(the whole JSON document, its validated records) of the records file `path`."""
    path = Path(path)
    text = input_file.read_text(path, "records file", "check the path; `tandem run --out FILE` writes one")
    if not text.strip():
        raise BadInput(f"{path}: empty records file", REGENERATE)
    doc = input_file.parse_json(text, path, "the run may have been killed while writing; " + REGENERATE)
    return doc, validate(doc, path)


SCHEMA_FILE = Path(__file__).resolve().parent / "record.schema.json"
_validator = None


def schema_validator():
    """reports/record.schema.json compiled once (reports/schema_check.py): a function of the
    document raising schema_check.Invalid at its first violation."""
    global _validator
    if _validator is None:
        _validator = schema_check.compile_schema(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    return _validator


def where(doc, error_path):
    """'record 3 (dot/x/cpu), field metrics[0].value' for a JSON Schema error's path."""
    parts = list(error_path)
    if len(parts) >= 2 and parts[0] == "records" and isinstance(parts[1], int):
        i, rest = parts[1], parts[2:]
        r = doc["records"][i]
        case = r.get("case") if isinstance(r, dict) and isinstance(r.get("case"), str) else None
        head = f"record {i}" + (f" ({case})" if case else "")
    else:
        head, rest = "top level", parts
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in rest).lstrip(".")
    return head + (f", field {field}" if field else "")


def validate(doc, path="<records>"):
    """The records of `doc`, after checking it against reports/record.schema.json; the first
    violation becomes a BadInput naming the file, the record and the field."""
    if not isinstance(doc, dict) or "records" not in doc:
        raise BadInput(f"{path}: not a tandem records file (no top-level \"records\")", REGENERATE)
    recs = doc["records"]
    tagged = isinstance(recs, list) and recs and all(isinstance(r, dict) and "schema" in r for r in recs)
    if "schema" in doc or not tagged:  # older files name the schema on every record only
        check_schema(doc.get("schema"), path)
    if isinstance(doc["records"], list):
        for i, r in enumerate(doc["records"]):
            if isinstance(r, dict) and "schema" in r:
                check_schema(r["schema"], f"{path}: record {i}")
    try:
        schema_validator()(doc)
    except schema_check.Invalid as e:
        raise BadInput(f"{path}: {where(doc, e.path)}: {e.message}",
                       f"records must follow {SCHEMA_FILE.name} (tandem.records/1); " + REGENERATE)
    names = [r["case"] for r in doc["records"]]
    if len(set(names)) != len(names):
        seen = set()
        dup = next(n for n in names if n in seen or seen.add(n))
        raise BadInput(f"{path}: case {dup!r} appears more than once", "one record per case and backend; " + REGENERATE)
    return check_timings(path, doc["records"])


TIME_UNITS = ("s", "ms", "us", "µs", "ns")  # a metric in one of these is a time from a clock
TIMES = ("median", "min", "max", "p99", "mean", "samples", "cpu_median", "cpu_samples")  # the timing block's times


def check_timings(path, recs):
    """A passing case's times (its timing block, its time-unit metrics) are finite seconds > 0:
    a zero or negative one would compare as "faster", a NaN as nothing. One check for every tool
    that reads records (gate, merge, report, history add, baseline): what one refuses none stores."""
    for i, r in enumerate(recs):
        if r["verdict"] != "pass":
            continue
        t = {k: x for k, x in (r.get("timing") or {}).items() if k in TIMES}  # a newer writer's extra fields pass
        times = [(f"timing.{k}", v) for k, x in t.items() for v in (x if isinstance(x, list) else [x])] + [
            (f"metric {m.get('name')}", v) for m in r["metrics"] if m.get("unit") in TIME_UNITS
            for v in [m.get("value"), *(m.get("samples") or [])]]
        bad = next((f"{f} is {v!r}" for f, v in times if not 0 < (num(v) or 0) < math.inf), None)
        if bad:
            raise BadInput(f"{path}: record {i} ({r['case']}): {bad}, not a time > 0",
                           "times come from a clock: finite and positive; " + REGENERATE)
    return recs


def check_schema(schema, where):
    if schema == SCHEMA:
        return
    if isinstance(schema, str) and schema.startswith("tandem.records/"):
        raise BadInput(f"{where}: record schema version mismatch: file has {schema}, these tools read {SCHEMA}",
                       "use the tandem version that wrote it, or " + REGENERATE)
    raise BadInput(f"{where}: unknown record schema {schema!r} (expected {SCHEMA})", REGENERATE)


def num(v):
    """A float from a JSON value; non-finite values are written as strings ("inf", "nan")."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def metrics(rec):
    """{name: {"value", "unit", "direction", "samples"?}} for the record's derived metrics with a
    finite value: a NaN or infinite metric (a NaN timing, a division by zero) is a correctness
    matter, not a point to plot, store or compare."""
    out = {}
    for m in rec.get("metrics") or []:
        v = num(m.get("value")) if isinstance(m, dict) else None
        if isinstance(m.get("name"), str) and v is not None and math.isfinite(v):
            out[m["name"]] = dict(m, value=v)
    return out


def timing_samples(rec):
    t = rec.get("timing") or {}
    s = [num(x) for x in t.get("samples") or []]
    s = [x for x in s if x is not None and math.isfinite(x)]
    if not s and num(t.get("median")) is not None:
        s = [num(t["median"])]
    return s


def time_median(rec):
    t = rec.get("timing") or {}
    if num(t.get("median")) is not None:
        return num(t["median"])
    m = metrics(rec).get("time_median")
    return m["value"] if m else None


def checks(rec):
    """[(name, report)] for each compare report in `correctness`, nested dicts included."""
    found = []

    def walk(prefix, node):
        if not isinstance(node, dict):
            return
        if "max_abs" in node or "error_over_tolerance" in node:
            found.append((prefix or "out", node))
            return
        for k, v in node.items():
            walk(f"{prefix}.{k}" if prefix else k, v)

    walk("", rec.get("correctness"))
    return found


def label(rec, suite_prefix=True):
    """The case name without the suite prefix and the backend suffix (which plots show apart)."""
    name = rec["case"]
    if suite_prefix and name.startswith(rec["suite"] + "/"):
        name = name[len(rec["suite"]) + 1:]
    backend = rec.get("backend")
    if backend and name.endswith("/" + backend):
        name = name[: -len(backend) - 1]
    return name


def run_profile(rec):
    """The --profile of the `tandem run|bench|check` that wrote the record (from the command
    line in its context; quick when not given, the CLI's default), or None when unknown."""
    cmd = str((rec.get("context") or {}).get("command_line") or "")
    words = cmd.split()
    at = next((i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == "tandem"), None)  # after mpirun ... too
    if at is None or at + 1 >= len(words) or words[at + 1] not in ("run", "bench", "check"):
        return None
    for i, w in enumerate(words[at:], at):
        if w == "--profile" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--profile="):
            return w.split("=", 1)[1]
    return "quick"


def by_suite(recs):
    out = {}
    for r in recs:
        out.setdefault(r["suite"], []).append(r)
    return out
