#!/usr/bin/env python3
# How long the Python tools take to validate a large records file: writes N records (the
# committed fixtures' records, cycled and renamed) and times records.load_document (read,
# parse, schema, timings) and the schema check alone, against jsonschema's generic validator
# of the same record.schema.json (what reports/records.py used before reports/schema_check.py).
#   python3 lab/bench/records_validate_speed.py N [--jsonschema]   (docs/RECORDS.md quotes it)
import copy
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from reports import records  # noqa: E402

FIXTURES = ROOT / "reports" / "tests" / "fixtures"


def make(n):
    pool = [r for f in ("dot.json", "lstm.json", "vmap.json", "collectives.json", "remat.json")
            for r in records.load(FIXTURES / f)]
    recs = []
    for i in range(n):
        r = copy.deepcopy(pool[i % len(pool)])
        r["case"] = f"{r['case']}/copy:{i}"
        recs.append(r)
    return {"schema": records.SCHEMA, "complete": True, "records": recs}


def main(argv):
    n = int(argv[0])
    doc = make(n)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(doc, f)
        f.flush()
        t0 = time.process_time()
        records.load_document(f.name)
        load = time.process_time() - t0
    t0 = time.process_time()
    records.schema_validator()(doc)
    schema = time.process_time() - t0
    print(f"{n} records: load_document {load:.3f} s CPU ({load / n * 1e3:.4f} ms/record); "
          f"schema check {schema:.3f} s ({schema / n * 1e3:.4f} ms/record)")
    if "--jsonschema" in argv:
        import jsonschema

        schema_doc = json.loads(records.SCHEMA_FILE.read_text())
        v = jsonschema.validators.validator_for(schema_doc)(schema_doc)
        t0 = time.process_time()
        errors = list(v.iter_errors(doc))
        js = time.process_time() - t0
        print(f"{n} records: jsonschema {js:.3f} s CPU ({js / n * 1e3:.4f} ms/record), {len(errors)} errors")


if __name__ == "__main__":
    main(sys.argv[1:])
