# Reading tandem records files ({"schema": "tandem.records/1", "records": [...]}) with clear
# bad-input errors, and small accessors shared by the report, the gate and the history.
import json
import math
from pathlib import Path

from reports.exit_codes import BadInput

SCHEMA = "tandem.records/1"
VERDICTS = ("pass", "fail", "skip", "error")
FAILED = ("fail", "error")
REGENERATE = "regenerate it with `tandem run ... --out FILE` from this tandem version"


def load(path):
    """Returns the list of records in `path`; raises BadInput with a hint on any problem."""
    return load_document(path)[1]


def load_document(path):
    """(the whole JSON document, its validated records) of the records file `path`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInput(f"{path}: no such records file", "check the path; `tandem run --out FILE` writes one")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read records ({e})", "check the file's permissions and that it is UTF-8 JSON")
    if not text.strip():
        raise BadInput(f"{path}: empty records file", REGENERATE)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        truncated = e.pos >= len(text.rstrip()) - 1
        what = "truncated JSON (ends early)" if truncated else f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}"
        raise BadInput(f"{path}: {what}", "the run may have been killed while writing; " + REGENERATE)
    return doc, validate(doc, path)


def validate(doc, path="<records>"):
    if not isinstance(doc, dict) or "records" not in doc:
        raise BadInput(f"{path}: not a tandem records file (no top-level \"records\")", REGENERATE)
    check_schema(doc.get("schema"), path)
    recs = doc["records"]
    if not isinstance(recs, list):
        raise BadInput(f"{path}: \"records\" is not a list", REGENERATE)
    for i, r in enumerate(recs):
        if not isinstance(r, dict) or not isinstance(r.get("case"), str) or not isinstance(r.get("suite"), str):
            raise BadInput(f"{path}: record {i} lacks \"suite\" or \"case\"", REGENERATE)
        if "schema" in r:
            check_schema(r["schema"], f"{path}: record {i}")
        if r.get("verdict") not in VERDICTS:
            raise BadInput(f"{path}: record {i} ({r['case']}) has verdict {r.get('verdict')!r}, expected one of {VERDICTS}", REGENERATE)
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
    """{name: {"value", "unit", "direction", "samples"?}} for the record's derived metrics."""
    out = {}
    for m in rec.get("metrics") or []:
        if isinstance(m, dict) and isinstance(m.get("name"), str) and num(m.get("value")) is not None:
            out[m["name"]] = dict(m, value=num(m["value"]))
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


def by_suite(recs):
    out = {}
    for r in recs:
        out.setdefault(r["suite"], []).append(r)
    return out
