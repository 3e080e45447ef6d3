"""npy_fixtures.py DIR: .npy files for lstm_command_test's NpyIo test and DIR/MANIFEST (`NAME
accept|refuse|either`). numpy writes each accept; numpy.load judges the byte-level variants:
refuse where it raises, either where it loads one (tandem reads only what numpy.save writes)."""
import os
import struct
import sys

import numpy as np

out, base, verdicts = sys.argv[1], np.arange(6).reshape(2, 3), {}
for dt in ("<f4", "<f8", "<f2", "<i4"):
    for v in ((1, 0), (2, 0), (3, 0)):
        for order in "CF":
            name = f"np_{dt[1:]}_v{v[0]}_{order}.npy"
            with open(os.path.join(out, name), "wb") as f:
                np.lib.format.write_array(f, np.asarray(base, dtype=dt, order=order), version=v)
            verdicts[name] = "accept"


def raw(header, major=1, minor=0):
    length = "<H" if major == 1 else "<I"
    h = header.encode("latin1")
    h += b" " * (-(8 + struct.calcsize(length) + len(h) + 1) % 64) + b"\n"
    return b"\x93NUMPY" + bytes([major, minor]) + struct.pack(length, len(h)) + h + base.astype("<f4").tobytes()


good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
variants = {"raw_good": raw(good)} | {f"version_{a}_{b}": raw(good, a, b) for a, b in
                                      ((1, 1), (2, 1), (3, 1), (0, 0), (4, 0), (255, 0), (1, 255))}
for i, (old, new) in enumerate((
        ("'<f4'", "'< f4'"), ("'<f4'", "' <f4'"), ("'<f4'", "'<f4 '"), ("'<f4'", "'<f 4'"), ("'<f4'", "'<F4'"),
        ("'<f4'", "'f4'"), ("'<f4'", "'float32'"), ("'descr'", "'de scr'"), ("False", "Fal se"), ("False", "0"),
        ("(2, 3)", "(2 3)"), ("(2, 3)", "(2,, 3)"), ("(2, 3)", "(6)"), ("(2, 3)", "(02, 3)"), ("(2, 3)", "(2, 3,,)"),
        ("(2, 3)", "[2, 3]"), ("'shape'", "'sha pe'"), (", }", ",, }"), ("{", "{ ,"))):
    variants[f"header_{i}_{new.strip(chr(39)).replace(' ', '_')}"] = raw(good.replace(old, new, 1))
for name, blob in variants.items():
    with open(os.path.join(out, name + ".npy"), "wb") as f:
        f.write(blob)
    try:
        np.load(os.path.join(out, name + ".npy"))
        verdicts[name + ".npy"] = "accept" if name == "raw_good" else "either"
    except Exception:
        verdicts[name + ".npy"] = "refuse"
with open(os.path.join(out, "MANIFEST"), "w") as f:
    f.writelines(f"{n} {v}\n" for n, v in verdicts.items())
