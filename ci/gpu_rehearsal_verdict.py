#!/usr/bin/env python3
"""The verdict of a GPU dress rehearsal (ci/gpu_rehearsal.sh): what the device calls left
under OUT (one folder per call, as the device tool would return it) must come back whole, the
last call's archive must hold every record, and every step must pass, except the steps that
need a GPU, which must fail *because no GPU is here* (their log says so). Anything else is
named, so a blocker put back shows as the step it breaks.
    ci/gpu_rehearsal_verdict.py OUT LOGS   (prints Markdown; exit 1 when the rehearsal failed)
"""
import csv
import os
import re
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
# What a missing GPU looks like in a step's note or log: one pattern per way it is reported.
NO_GPU = re.compile(r"no nvidia-smi|no CUDA device|nvidia-smi: (not found|command not found)|no usable CUDA device"
                    r"|asks for a GPU|no CUDA case passed|no CUDA-capable device|python3 has no torch|no compute-sanitizer here"
                    r"|CUDA driver version is insufficient|skipped: no GPU|no GPU")
# Steps that need a GPU: (pattern on the step name, what it does without one).
NEEDS_GPU = [
    (r"gpu_visible", "nvidia-smi lists no GPU"),
    (r"(quick|program)_cuda_\w+_as_cpu", "no CUDA case passed"),
    (r"perf_cuda_\w+_checked", "no CUDA case passed"),
    (r"\w+_no_skips", "the GPU tests skip for want of a device"),
    (r"nccl_sweep_np1", "the NCCL sweep needs a device"),
    (r"torch_lstm|lstm_vs_torch", "no CUDA PyTorch here"),
    (r"sanitizer_(memcheck|initcheck)_\w+", "compute-sanitizer needs a device"),
]
# What the last call's archive must hold (paths under gpu/), and at least one of each glob.
MUST_HOLD = ["gpu/summary.md", "gpu/steps.tsv", "gpu/machine.txt", "gpu/ctest_gpu.log",
             "gpu/libs_probe/records.json", "gpu/perf/dot/records.json", "gpu/perf/lstm/records.json",
             "gpu/sanitizer_plan.tsv", "gpu/lstm_ratios.md"]
AFTER_PHASE = "gpu/logs/after_phase.log"  # what the packs after each phase said: nothing when they worked
MUST_HOLD_SOME = [r"gpu/quick_cuda/\w+/records\.json", r"gpu/program/\w+/records\.json"]


def needs_gpu(step):
    return next((why for pat, why in NEEDS_GPU if re.fullmatch(pat, step)), None)


def step_log(gpu_dir, step):
    path = os.path.join(gpu_dir, "logs", step + ".log")
    return open(path, errors="replace").read() if os.path.exists(path) else ""


def fails_for_want_of_a_gpu(step, note, log):
    """Whether a failed step that needs a GPU failed only for want of one. A skip check must
    name every skip it failed on, each for a missing device: one skip for another reason (a
    library not built in, say) among a hundred no-device ones is not forgiven."""
    if re.search(r"_no_skips$", step):
        named = [line for line in log.splitlines() if line.lstrip().startswith("FAILS:")]
        return bool(named) and all(NO_GPU.search(line) for line in named)
    return bool(NO_GPU.search(note + "\n" + log))


def judge_steps(rows, gpu_dir):
    """(table lines, failures): each step's rehearsal verdict."""
    lines, failures = ["| step | result | seconds | rehearsal verdict |", "|---|---|---|---|"], []
    for step, result, rc, secs, note in (row[:5] for row in rows):  # a sixth column: the phase
        why = needs_gpu(step)
        if result == "pass":
            verdict = "ok"
        elif why and fails_for_want_of_a_gpu(step, note, step_log(gpu_dir, step)):
            verdict = f"ok: fails for want of a GPU ({why})"
        elif result == "not run" and not note.startswith("out of time"):
            verdict = f"ok: not run ({note})" if why else f"FAIL: not run ({note})"
        else:
            verdict = f"FAIL: {note or result}"
        if verdict.startswith("FAIL"):
            failures.append(f"step {step}: {verdict[6:]}")
        lines.append(f"| {step} | {result} | {secs} | {verdict} |")
    return lines, failures


def judge_archive(archive):
    """Failures: records or logs missing from the archive the last call packed, and a pack after
    a phase that failed (its output in logs/after_phase.log: a call cut then returns nothing)."""
    with tarfile.open(archive) as t:
        names = set(t.getnames())
        packs = t.extractfile(AFTER_PHASE).read().decode(errors="replace").strip() if AFTER_PHASE in names else ""
    missing = [p for p in MUST_HOLD if p not in names]
    missing += [pat for pat in MUST_HOLD_SOME if not any(re.fullmatch(pat, n) for n in names)]
    records = sorted(n for n in names if n.endswith("records.json"))
    failures = [f"the archive lacks {m}" for m in missing]
    return failures + ([f"a pack after a phase failed: {packs.splitlines()[0]}"] if packs else []), records


def main(argv):
    if len(argv) != 3:
        print("usage: ci/gpu_rehearsal_verdict.py OUT LOGS", file=sys.stderr)
        return 4
    out, logs = argv[1], argv[2]
    calls = sorted(d for d in os.listdir(out) if d.startswith("call"))
    failures = []
    print("# GPU dress rehearsal\n")
    for call in calls:
        check = subprocess.run([sys.executable, os.path.join(HERE, "device_limits.py"), os.path.join(out, call)],
                               capture_output=True, text=True)
        print(f"## what {call} would bring back\n\n```\n{check.stdout.strip()}\n```\n")
        if check.returncode:
            failures.append(f"{call}: its results would not all come back")
    last = os.path.join(out, calls[-1], "gpu-results.tar.xz") if calls else ""
    if not os.path.exists(last):
        failures.append(f"no gpu-results.tar.xz from the last call ({last or 'no call ran'})")
        rows, records = [], []
    else:
        with tarfile.open(last) as t:
            t.extractall(logs, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        more, records = judge_archive(last)
        failures += more
        rows = list(csv.reader(open(os.path.join(logs, "gpu", "steps.tsv")), delimiter="\t"))
    lines, more = judge_steps(rows, os.path.join(logs, "gpu"))
    failures += more
    print("## steps (the last call's steps.tsv)\n")
    print("\n".join(lines))
    print(f"\n## records in the archive ({len(records)})\n")
    print("\n".join(f"- {r}" for r in records))
    print("\n## verdict\n")
    print("\n".join(f"- FAIL: {f}" for f in failures) if failures else
          "passed: every step that needs no GPU passed, the rest failed for want of one, and "
          "every record came back within the device tool's limits")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
