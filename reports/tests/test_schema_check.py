# reports/schema_check.py (the validator compiled from record.schema.json) against jsonschema's
# generic one on the same schema: the same verdict on every committed fixture and on thousands of
# mutated records (each field set to values of every JSON type, dropped, or nested), and the
# violation at the same place. A keyword the compiler does not know fails at compile time.
import copy
import json
import random

import jsonschema
import pytest
from conftest import FIXTURES

from reports import records, schema_check

SCHEMA = json.loads(records.SCHEMA_FILE.read_text())
REFERENCE = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
VALUES = [None, True, False, 0, 1, -1, 2.0, 0.5, -0.0, 1e300, "", "x", "nan", "inf", "-inf", "NaN", "pass", "lower",
          "exact", "tandem.records/1", [], [1], ["nan"], [None, 2], {}, {"a": 1}, {"error_over_tolerance": "x"},
          {"ranks": 1, "per_rank": []}, {"name": "m", "value": 1}]


def verdicts(doc):
    ours = None
    try:
        schema_check.compile_schema(SCHEMA)(doc)
    except schema_check.Invalid as e:
        ours = e.path
    theirs = [list(e.absolute_path) for e in REFERENCE.iter_errors(doc)]
    return ours, theirs


def paths(node, prefix=()):
    yield list(prefix)
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        yield from paths(v, prefix + (k,))


def mutated(doc, rng):
    doc = copy.deepcopy(doc)
    where = rng.choice(list(paths(doc))[1:])
    parent = doc
    for k in where[:-1]:
        parent = parent[k]
    if isinstance(parent, dict) and rng.random() < 0.2:
        del parent[where[-1]]
    else:
        parent[where[-1]] = copy.deepcopy(rng.choice(VALUES))
    return doc


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*.json")))
def test_fixtures_get_the_same_verdict(fixture):
    try:
        doc = json.loads((FIXTURES / fixture).read_text())
    except json.JSONDecodeError:
        pytest.skip("not JSON")
    ours, theirs = verdicts(doc)
    assert (ours is None) == (not theirs), (ours, theirs[:3])


def test_mutated_records_get_the_same_verdict_at_the_same_place():
    rng = random.Random(20261129)
    base = [json.loads((FIXTURES / f).read_text()) for f in ("dot.json", "lstm.json", "collectives.json", "remat.json")]
    base = [{"schema": records.SCHEMA, "records": d["records"][:3]} for d in base]
    invalid = 0
    for i in range(2000):
        doc = mutated(rng.choice(base), rng)
        ours, theirs = verdicts(doc)
        assert (ours is None) == (not theirs), (i, ours, theirs[:3])
        if ours is not None:
            invalid += 1
            # an anyOf or a type error may sit one level above the deepest place jsonschema names
            assert any(t[:len(ours)] == ours for t in theirs), (i, ours, theirs[:3])
    assert invalid > 200  # the mutations reach the schema's rules, not only its open objects


def test_an_unknown_keyword_fails_at_compile_time():
    with pytest.raises(ValueError, match="patternProperties"):
        schema_check.compile_schema({"type": "object", "patternProperties": {"x": {}}})
