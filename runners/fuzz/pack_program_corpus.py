#!/usr/bin/env python3
"""Writes program_json_fuzz's seed corpus (runners/fuzz/corpus/program_json): the exported
examples (examples/exported/*) packed with their companions as program_json_fuzz.cc reads an
input (program.json, then each companion after a line "#@file NAME"), each example's bare
program.json, and the smallest dumped program (`tandem dump-programs`) of each distinct set of
primitives, so every primitive's params reach the reader.

    runners/fuzz/pack_program_corpus.py TANDEM OUT_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKER = b"\n#@file "


def primitives(program):
    """The primitives of a program and its sub-programs, as a sorted tuple."""
    found, todo = set(), [program]
    while todo:
        p = todo.pop()
        for e in p.get("eqns", []):
            found.add(e["primitive"])
            todo += [v["program"] for v in e.get("params", {}).values() if isinstance(v, dict) and "program" in v]
    return tuple(sorted(found))


def pack(example):
    out = open(os.path.join(example, "program.json"), "rb").read()
    for sub in ("export.json", "jax/saved_residuals.json", "inputs", "jax"):
        path = os.path.join(example, sub)
        names = sorted(os.listdir(path)) if os.path.isdir(path) else [""] if os.path.exists(path) else []
        for n in names:
            name = os.path.join(sub, n) if n else sub
            if name.endswith(".npy") or not n:
                out += MARKER + name.encode() + b"\n" + open(os.path.join(example, name), "rb").read()
    return out


def main(tandem, out):
    os.makedirs(out, exist_ok=True)
    examples = os.path.join(ROOT, "examples", "exported")
    for name in sorted(os.listdir(examples)):
        open(os.path.join(out, f"export_{name}"), "wb").write(pack(os.path.join(examples, name)))
        open(os.path.join(out, f"bare_{name}.json"), "wb").write(open(os.path.join(examples, name, "program.json"), "rb").read())
    with tempfile.TemporaryDirectory() as dump:
        subprocess.run([tandem, "dump-programs", dump, "--profile", "quick"], check=True, capture_output=True)
        smallest = {}
        for d, _, files in sorted(os.walk(dump)):
            if "program.json" in files:
                text = open(os.path.join(d, "program.json"), "rb").read()
                key = primitives(json.loads(text))
                if key not in smallest or len(text) < len(smallest[key]):
                    smallest[key] = text
        for i, (key, text) in enumerate(sorted(smallest.items())):
            open(os.path.join(out, f"dumped_{i:03d}.json"), "wb").write(text)
    print(f"{len(os.listdir(out))} seeds in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
