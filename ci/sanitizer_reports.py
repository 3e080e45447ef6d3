#!/usr/bin/env python3
"""Judges the sanitizer report files of one step of ci/sanitize.sh (one file per process).

Fails (exit 1) on any AddressSanitizer or UndefinedBehaviorSanitizer report, and on any leak
that can be attributed to loaded code. A leak block whose first caller above the allocator (and above
glibc's string helpers such as vasprintf) is "<unknown module>" was allocated by a shared
object that had been unloaded by the time LeakSanitizer ran: in tandem's processes that is an Open MPI component (MCA components are
dlopen()ed and dlclose()d by MPI_Finalize; nothing of tandem's is ever unloaded, so a tandem
frame always has a module). Those blocks are counted, not failed. Leaks with any named frame
outside ci/lsan_openmpi.supp's libraries (those were already suppressed) fail.
Prints one summary line; with --list, every failing block.
    ci/sanitizer_reports.py STEP DIR [--list]
"""
import os
import re
import sys

FRAME = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ ")
BLOCK = re.compile(r"^(Direct|Indirect) leak of (\d+) byte")


def leak_blocks(text):
    block = None
    for line in text.splitlines():
        if BLOCK.match(line):
            if block:
                yield block
            block = [line]
        elif block is not None:
            if FRAME.match(line):
                block.append(line)
            else:
                yield block
                block = None
    if block:
        yield block


# glibc's allocating string helpers: tandem never calls them (grep finds no v?asprintf or
# strn?dup in its sources), and glibc has no frame pointers, so the fast unwinder often stops
# right above them; their caller decides whose allocation it is.
LIBC_HELPER = re.compile(r" in (__)?(v?asprintf|strn?dup)(_internal|_chk)? ")


def from_unloaded_module(block):
    """True when the allocation's first caller above the allocator and glibc's string helpers
    is "<unknown module>" (or the unwinder stopped inside a helper): code no longer loaded."""
    frames = [l for l in block[1:] if not re.match(r"^\s*#0 ", l)]
    if not frames:
        return False  # nothing but the allocator: say nothing, fail it
    callers = [l for l in frames if not LIBC_HELPER.search(l)]
    return not callers or "(<unknown module>)" in callers[0]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: ci/sanitizer_reports.py STEP DIR [--list]")
    step, folder, show = sys.argv[1], sys.argv[2], "--list" in sys.argv[3:]
    files = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    errors, leaks, truncated, unloaded, unloaded_bytes = [], [], [], 0, 0
    for name in files:
        text = open(os.path.join(folder, name), errors="replace").read()
        if re.search(r"ERROR: AddressSanitizer|runtime error:", text):
            errors.append(name)
        blocks = list(leak_blocks(text))
        if blocks and len(blocks[-1]) == 1 and text.rstrip().endswith(blocks[-1][0].strip()):
            # The file ends inside a block's header: the process was killed while writing its
            # leak report (a rank that mpirun or the watchdog ended, as the launch fault tests
            # do on purpose). Nothing to attribute; counted and listed, not judged.
            truncated.append(name)
            blocks.pop()
        for block in blocks:
            if from_unloaded_module(block):
                unloaded += 1
                unloaded_bytes += int(BLOCK.match(block[0]).group(2))
            else:
                leaks.append((name, block))
    print(f"sanitize: {step}: {len(files)} report files; {len(errors)} with ASan/UBSan errors; "
          f"{len(leaks)} leaks in loaded code; {unloaded} leaks only in unloaded modules "
          f"({unloaded_bytes} B, Open MPI components dlclose()d at MPI_Finalize); "
          f"{len(truncated)} reports cut off by their process's end")
    if show:
        for name in errors:
            print(f"  error report: {folder}/{name}")
        for name in truncated:
            print(f"  cut off: {folder}/{name}")
        for name, block in leaks[:20]:
            print(f"  leak in {folder}/{name}:\n    " + "\n    ".join(block[:8]))
    return 1 if errors or leaks else 0


if __name__ == "__main__":
    sys.exit(main())
