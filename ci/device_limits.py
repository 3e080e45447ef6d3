#!/usr/bin/env python3
"""What the device tool brings back from a GPU machine's $OUT, as a check: at most 8 files,
16 MiB each and 64 MiB together, no deeper than two folders, names of letters, digits, '.',
'_' and '-' alone (/work/.library/device/README.md, Limits). Anything else is silently left
behind there, so a GPU session's results are checked against this before they are relied on:
ci/gpu_session.sh checks what it packed, and ci/gpu_rehearsal.sh what a session would return.
    ci/device_limits.py DIR        exit 0 when all of DIR would come back, else 1 with each reason
"""
import os
import re
import sys

MAX_FILES = 8
MAX_FILE_BYTES = 16 << 20
MAX_TOTAL_BYTES = 64 << 20
MAX_FOLDERS_DOWN = 2
NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def problems(root):
    """Each reason a file or folder under root would not come back, and the files that would."""
    found, why = [], []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        for name in dirs + files:
            if not NAME.match(name):
                why.append(f"{os.path.join(rel, name)}: name has characters other than letters, digits, . _ -")
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                why.append(f"{os.path.join(rel, name)}: not a plain file")
            elif depth > MAX_FOLDERS_DOWN:
                why.append(f"{os.path.join(rel, name)}: more than {MAX_FOLDERS_DOWN} folders down")
            else:
                found.append((os.path.join(rel, name), os.path.getsize(path)))
    for rel, size in found:
        if size > MAX_FILE_BYTES:
            why.append(f"{rel}: {size / 2**20:.1f} MiB, over {MAX_FILE_BYTES >> 20} MiB")
    if len(found) > MAX_FILES:
        why.append(f"{len(found)} files, over {MAX_FILES}: only some would come back")
    total = sum(size for _, size in found)
    if total > MAX_TOTAL_BYTES:
        why.append(f"{total / 2**20:.1f} MiB together, over {MAX_TOTAL_BYTES >> 20} MiB")
    return found, why


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: ci/device_limits.py DIR  (DIR: what a device call leaves under $OUT)", file=sys.stderr)
        return 4
    found, why = problems(argv[1])
    for rel, size in sorted(found):
        print(f"  {rel}  {size / 2**20:.2f} MiB")
    for w in why:
        print(f"error: would not come back: {w}")
    if not why:
        print(f"device limits: all {len(found)} files would come back")
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
