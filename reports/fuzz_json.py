# JSON-structure mutations for reports/fuzz.py's records and gate-config targets: libFuzzer's byte
# mutations mostly break the syntax, and never nest 1,000 deep (the RecursionError of issue 31),
# so half the inputs are a valid document with one node replaced, dropped or added instead.
import json
import random

MARK = "\x01fuzz\x01"  # placeholder for raw JSON text that json.dumps cannot write (deep nests, 1e999)


def odd_text(r, room):
    """Raw JSON of a value that broke, or could break, the tools: deep nesting, huge or
    non-finite numbers, lone surrogates, and the wrong type for any field."""
    depth = r.choice([40, 400, 999, 1500, 3000])
    choices = ["[" * depth + "]" * depth if 2 * depth < room else "[]", "1" + "0" * r.randint(18, 400),
               "-" + "9" * r.randint(19, 40), "1e999", "-1e999", "NaN", "Infinity", "-0", "5e-324", "1e308",
               '"\\ud800"', '"a\\udfff"', '""', '"nan"', '"-inf"', "null", "true", "0", "-1", "[]", "{}", '"x"']
    return r.choice(choices)


def slots(doc):
    """Every (container, key) of `doc`: the places a node can be replaced or dropped."""
    out, todo = [], [doc]
    while todo:
        node = todo.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            out.append((node, k))
            todo.append(v)
    return out


def mutate(data, max_size, seed, fallback):
    """A structural mutation of `data` when it is JSON (every other call), else `fallback`'s."""
    r = random.Random(seed)
    try:
        doc = json.loads(data) if r.random() < 0.5 else None
    except (ValueError, RecursionError):
        doc = None
    places = slots(doc) if isinstance(doc, (dict, list)) else []
    if not places:
        return fallback(data, max_size)
    node, key = r.choice(places)
    how = r.random()
    if how < 0.2 and isinstance(node, dict):
        del node[key]  # a missing key
    elif how < 0.4 and isinstance(node, dict):  # an extra key, or a known one with an odd value
        node[r.choice(["extra", "value", "samples", "min_effect", "suites", "case", "verdict", "metrics"])] = MARK
    elif how < 0.5 and isinstance(node, list):
        node.append(node[key])  # a duplicate (a case twice)
    else:
        node[key] = MARK
    text = json.dumps(doc, ensure_ascii=False)
    out = text.replace(json.dumps(MARK), odd_text(r, max_size - len(text)), 1)
    out = out.encode("utf-8", "surrogatepass")
    return out if len(out) <= max_size else fallback(data, max_size)
