# `python3 -m reports {report,merge,gate,history,baseline} ...` — what `tandem report|merge|gate|
# history|baseline` runs. Every failure becomes one `error:` line with a `hint:` and an exit code
# from reports/exit_codes.py; argparse's own usage errors are bad input (4), not its usual 2.
import argparse
import sqlite3
import sys
import traceback

from reports import exit_codes
from reports.exit_codes import BadInput, TandemError


def nonempty(text):
    if not text:
        raise argparse.ArgumentTypeError("an empty value would mean a default or the working directory")
    return text


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise BadInput(f"{self.prog}: {message}", f"`{self.prog} --help` lists the options")

    def add_argument(self, *args, **kw):
        """Every option that takes a free value refuses an empty one, by being added."""
        if kw.get("action", "store") in ("store", "append") and "type" not in kw and "choices" not in kw:
            kw["type"] = nonempty
        return super().add_argument(*args, **kw)


def build_parser():
    from reports import baseline, history_db, history_report, merge, report

    p = Parser(prog="tandem", description="tandem reports, A/B gate, baselines and nightly history")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)

    r = sub.add_parser("report", help="HTML + Markdown report and plots from records files")
    r.add_argument("records", nargs="+", help="records JSON files (tandem.records/1)")
    r.add_argument("-o", "--output", required=True, help="output folder (index.html, summary.md, *.png)")
    r.add_argument("--title", default="tandem report")
    r.set_defaults(func=report.main)

    m = sub.add_parser("merge", help="one run directory from runs made apart (records, benchmark.json, summary.md)")
    m.add_argument("parts", nargs="+", help="run directories (or their records.json), each case in one only")
    m.add_argument("-o", "--output", required=True, help="output folder (records.json, benchmark.json, summary.md)")
    m.set_defaults(func=merge.main)

    g = sub.add_parser("gate", help="correctness-first A/B gate of a run against a baseline")
    g.add_argument("--current", help="records of the run under test")
    g.add_argument("--current-runs", nargs="+", metavar="RECORDS", help="run-level gate: records of several "
                   "processes of the build under test (ci/gate_ab.sh; docs/CI.md)")
    g.add_argument("--baseline-runs", nargs="+", metavar="RECORDS", help="run-level gate: several processes of the "
                   "baseline (default: reports/baselines/<machine-kind>/runs/*.json)")
    g.add_argument("--run-metric", choices=("cpu", "wall"), default="cpu", help="run-level gate: judge CPU cases by "
                   "process CPU time (default; blind to waiting for a core on a shared host) or by wall time")
    g.add_argument("--baseline", help="baseline records (default: reports/baselines/<machine-kind>/records.json)")
    g.add_argument("--machine-kind", help="baseline to use when --baseline is not given (or TANDEM_MACHINE_KIND)")
    g.add_argument("--baselines-root", help="folder holding <machine-kind>/records.json (default reports/baselines)")
    g.add_argument("--config", help="JSON: min_effect, alpha, suites.<suite>.min_effect")
    g.add_argument("--min-effect", help="smallest change that counts, e.g. 0.05 or 5%% (default 5%%)")
    g.add_argument("--suite-min-effect", action="append", metavar="SUITE=FRACTION", help="per-suite minimum effect")
    g.add_argument("--alpha", help="false-discovery rate: Benjamini–Hochberg q of the Mann–Whitney U tests (default 0.05)")
    g.add_argument("--single-run-noise", help="one run per side: how far a case's time over its anchor moves "
                   "between runs of one build (default 12%%, measured A/A: docs/CI.md); a change inside it is "
                   "INCONCLUSIVE (exit 3)")
    g.add_argument("--summary", help="also write the markdown summary to this file")
    g.add_argument("--allow-cross-cpu", action="store_true", help="compare with a baseline of another CPU model or "
                   "ISA (refused otherwise: exit 6), with a warning")
    g.set_defaults(func=gate_main)

    h = sub.add_parser("history", help="nightly history in SQLite").add_subparsers(dest="action", required=True,
                                                                                    parser_class=Parser)
    ha = h.add_parser("add", help="append runs from records files (idempotent)")
    ha.add_argument("records", nargs="+")
    ha.add_argument("--db", default=history_db.DEFAULT_DB, help=f"SQLite file (default {history_db.DEFAULT_DB})")
    ha.add_argument("--allow-incomplete", action="store_true", help="add a run that did not complete (marked so)")
    ha.set_defaults(func=history_db.main_add)
    hr = h.add_parser("report", help="trend plots and change points")
    hr.add_argument("--db", default=history_db.DEFAULT_DB, help=f"SQLite file (default {history_db.DEFAULT_DB})")
    hr.add_argument("-o", "--output", required=True)
    hr.add_argument("--alpha", type=float, default=0.01, help="Bonferroni-corrected significance (default 0.01)")
    hr.add_argument("--min-effect", type=float, default=0.05, help="smallest change of means flagged (default 0.05)")
    hr.add_argument("--min-size", type=int, default=3, help="runs needed on each side of a change point (default 3)")
    hr.set_defaults(func=history_report.main)

    b = sub.add_parser("baseline", help="baselines per machine kind").add_subparsers(dest="action", required=True,
                                                                                      parser_class=Parser)
    for name, fn, needs in (("refresh", baseline.refresh, True), ("show", baseline.show, False)):
        x = b.add_parser(name, help="install RECORDS as the baseline" if needs else "print the baseline's path")
        x.add_argument("records", nargs=None if needs else "?", help="records file")
        x.add_argument("--machine-kind", help="default: TANDEM_MACHINE_KIND, else derived from the records' context")
        x.add_argument("--root", help="baselines folder (default reports/baselines)")
        x.set_defaults(func=fn)
    return p


def gate_main(a):
    from reports import gate, gate_runs

    if a.current_runs:
        if a.current or a.baseline:
            raise BadInput("--current-runs goes with --baseline-runs, not --current/--baseline",
                           "run-level: --baseline-runs B... --current-runs C...; one run each: --baseline B --current C")
        return gate_runs.main(a)
    if a.baseline_runs or not a.current:
        raise BadInput("tandem gate needs --current (or --current-runs for the run-level gate)",
                       "`tandem gate --help` lists the options")
    return gate.main(a)


def main(argv=None):
    for stream in (sys.stdout, sys.stderr):  # µ, → and emoji must not crash a non-UTF-8 terminal
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except TandemError as e:
        print(e.render(), file=sys.stderr)
        return e.code
    except ImportError as e:
        print(f"error: missing Python module ({e})\n  hint: apt-get install python3-matplotlib python3-numpy "
              "python3-scipy, and run with /usr/bin/python3", file=sys.stderr)
        return exit_codes.INFRASTRUCTURE_ERROR
    except (OSError, sqlite3.Error) as e:
        print(f"error: {e}\n  hint: check the disk space and permissions of the output paths", file=sys.stderr)
        return exit_codes.INFRASTRUCTURE_ERROR
    except Exception:  # a bug in these tools: say so, with the traceback, and keep the contract
        traceback.print_exc()
        print("error: internal error in reports/\n  hint: please file an issue with the traceback above", file=sys.stderr)
        return exit_codes.INFRASTRUCTURE_ERROR


if __name__ == "__main__":
    sys.exit(main())
