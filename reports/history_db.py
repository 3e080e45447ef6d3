# The nightly history in SQLite: one row per run (its context split into history-breaking and informational fields), per
# case its verdict, per case and metric its value. A run's id is a hash of its canonical content, so re-adding the same
# records adds nothing; each add is one transaction, so a failure leaves the history as it was.
import datetime
import hashlib
import json
import sqlite3
from pathlib import Path

from reports import atomic, context, records, run_completion
from reports.exit_codes import PASS, BadInput, InfrastructureError

DEFAULT_DB = "results/history.sqlite"
VERSION = "1"
APPLICATION_ID = 0x746E6468  # "tndh" in the SQLite header: this file is a tandem history
TABLES = {"meta", "runs", "results", "metrics"}
DDL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- order of arrival: the x axis of trends
  run_id TEXT NOT NULL UNIQUE,             -- sha256 of the canonical context + records
  added_at TEXT NOT NULL, source TEXT, git_sha TEXT, host TEXT,
  breaking TEXT NOT NULL,                  -- canonical JSON of the history-breaking fields
  info TEXT NOT NULL);                     -- JSON of the informational fields
CREATE TABLE IF NOT EXISTS results(
  run_seq INTEGER NOT NULL REFERENCES runs(seq), case_name TEXT NOT NULL, suite TEXT NOT NULL,
  backend TEXT, verdict TEXT NOT NULL, PRIMARY KEY(run_seq, case_name));
CREATE TABLE IF NOT EXISTS metrics(
  run_seq INTEGER NOT NULL REFERENCES runs(seq), case_name TEXT NOT NULL, name TEXT NOT NULL,
  value REAL NOT NULL, unit TEXT, direction TEXT, PRIMARY KEY(run_seq, case_name, name));
"""


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def integrity_problems(conn):
    """The lines of SQLite's integrity check, [] when the file is sound."""
    try:
        rows = [r[0] for r in conn.execute("PRAGMA integrity_check(20)").fetchall()]
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:  # SQLite quotes a broken schema's raw bytes
        return [str(e)]
    except MemoryError:  # SQLITE_NOMEM from a few KB: sizes in the file beyond reason (reports/fuzz.py)
        return ["SQLite ran out of memory checking it"]
    return [] if rows == ["ok"] else rows


def corrupt(p, conn, e):
    problems = integrity_problems(conn) if conn is not None else []
    what = "; ".join(problems[:3]) or str(e)
    return BadInput(f"{p}: the history database is corrupt: {what}",
                    "restore it from a backup, or rebuild it with `tandem history add` over the kept records files; "
                    "`sqlite3 FILE .recover` may salvage rows")


def unwritable(e):
    """SQLite could not write or create the file: a permission problem, never corruption."""
    name = getattr(e, "sqlite_errorname", "")  # Python >= 3.11; the message otherwise
    return name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")) or \
        any(m in str(e) for m in ("readonly database", "unable to open database file"))


def disk_failed(e):
    """SQLite could not write for want of room (a full disk, a file-size limit) or an I/O error:
    the file may be sound, so never "corrupt, restore from a backup"."""
    name = getattr(e, "sqlite_errorname", "")
    return name.startswith(("SQLITE_FULL", "SQLITE_IOERR")) or \
        any(m in str(e) for m in ("database or disk is full", "disk I/O error"))


def claim(conn, p, stamp):
    """Refuses a database that is not tandem's (another application's id, or foreign tables),
    so `history add` never writes tandem's tables into someone else's file; stamps new ones."""
    (app_id,) = conn.execute("PRAGMA application_id").fetchone()
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")}
    if app_id not in (0, APPLICATION_ID):
        raise BadInput(f"{p}: not a tandem history database (SQLite application_id {app_id:#x}, tandem's is "
                       f"{APPLICATION_ID:#x})", "pass --db with a tandem history file, or a new file name")
    if tables - TABLES or (tables and "meta" not in tables):
        raise BadInput(f"{p}: not a tandem history database (it holds tables {', '.join(sorted(tables - TABLES) or sorted(tables))})",
                       "pass --db with a tandem history file, or a new file name")
    if not stamp and "meta" not in tables:
        raise BadInput(f"{p}: the history database is empty", "add runs first: `tandem history add RECORDS --db FILE`")
    if app_id == 0 and stamp:  # a new file, or a history written before the id was stamped
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def check_columns(conn):
    """Each table's columns must be the DDL's: a renamed one used to fail `history add` mid-insert
    with an OperationalError, which reads as a disk problem (exit 5). Found by reports/fuzz.py."""
    want = sqlite3.connect(":memory:")
    want.executescript(DDL)
    for t in sorted(TABLES):
        have, need = ([r[1] for r in c.execute(f"PRAGMA table_info({t})")] for c in (conn, want))
        if have != need:
            raise sqlite3.DatabaseError(f"table {t} has columns {', '.join(map(str, have))}, not {', '.join(need)}")


def connect(path, create):
    p = Path(path)
    if not create and not p.is_file():
        raise BadInput(f"no history database at {p}", "add runs first: `tandem history add RECORDS --db FILE`")
    if p.exists() and not p.is_file():
        raise BadInput(f"{p}: not a regular file", "pass --db with a history file")
    conn = None
    try:
        if create:
            p.parent.mkdir(parents=True, exist_ok=True)
        # A reader opens read-only: `history report` works on a history it may not write.
        conn = sqlite3.connect(str(p) if create else p.absolute().as_uri() + "?mode=ro", uri=not create, timeout=30,
                               isolation_level=None)  # transactions are explicit
        claim(conn, p, stamp=create)
        if integrity_problems(conn):
            raise sqlite3.DatabaseError("integrity check failed")
        if create:
            conn.executescript(DDL)
            conn.execute("INSERT OR IGNORE INTO meta VALUES('schema_version', ?)", (VERSION,))
        check_columns(conn)
        v = (conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() or [None])[0]
    except (sqlite3.DatabaseError, UnicodeDecodeError, MemoryError) as e:  # NOMEM: a corrupt size (fuzz.py)
        if isinstance(e, sqlite3.OperationalError) and "locked" in str(e):
            raise InfrastructureError(f"{p}: database is locked", "another `history add` holds it; retry")
        if disk_failed(e):
            raise InfrastructureError(f"{p}: cannot {'write' if create else 'read'} the history database ({e})",
                                      "free space on its filesystem (SQLite writes a journal beside it), or pass "
                                      "--db on another one")
        if unwritable(e):
            raise InfrastructureError(f"{p}: cannot {'write' if create else 'read'} the history database ({e})",
                                      "check the permissions of the file and its folder (SQLite writes a journal "
                                      "beside it) and that the filesystem is not mounted read-only")
        if "file is not a database" in str(e):
            raise BadInput(f"{p}: not a tandem history database (not an SQLite file)", "pass --db with a history file")
        raise corrupt(p, conn, e)
    except BadInput:
        conn.close()
        raise
    if v != VERSION:
        raise BadInput(f"{p}: history schema version {v}, these tools use {VERSION}", "start a new --db file")
    return conn


def runs_in(recs):
    """[(run_id, context, records)]: one run per distinct context in a records file."""
    groups = {}
    for r in recs:
        groups.setdefault(canonical(r.get("context") or {}), []).append(r)
    out = []
    for ctx_text, rs in groups.items():
        body = canonical({"context": json.loads(ctx_text), "records": sorted(rs, key=lambda r: r["case"])})
        out.append((hashlib.sha256(body.encode()).hexdigest(), json.loads(ctx_text), rs))
    return out


def metric_rows(rec):
    ms = records.metrics(rec)
    if "time_median" not in ms and records.time_median(rec) is not None:
        ms["time_median"] = {"value": records.time_median(rec), "unit": "s", "direction": "lower"}
    return [(n, m["value"], m.get("unit"), m.get("direction")) for n, m in ms.items() if m["value"] == m["value"]
            and abs(m["value"]) != float("inf")]


def add(db, paths, allow_incomplete=False):
    """Adds every run in `paths` in one transaction; returns (added, already present). An
    incomplete run would enter the trends as vanished cases: refused unless allowed, then marked."""
    loaded = [(p, recs, run_completion.problem(p, doc, recs)) for p in paths for doc, recs in [records.load_document(p)]]
    if (why := next((w for _, _, w in loaded if w), None)) and not allow_incomplete:  # all checked before any write
        raise BadInput(f"not adding an incomplete run to the history: {why}", "add the records of a run that "
                       "finished; --allow-incomplete adds it anyway, marked incomplete in the history")
    conn = connect(db, create=True)
    added = present = 0
    try:
        conn.execute("BEGIN IMMEDIATE")
        for path, recs, why in loaded:
            for run_id, ctx, rs in runs_in(recs):
                if conn.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)).fetchone():
                    present += 1
                    continue
                breaking, info = context.split(ctx)
                info = dict(info, incomplete=why) if why else info
                cur = conn.execute(
                    "INSERT INTO runs(run_id, added_at, source, git_sha, host, breaking, info) VALUES(?,?,?,?,?,?,?)",
                    (run_id, datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), str(path),
                     ctx.get("git_sha"), ctx.get("host"), canonical(breaking), canonical(info)))
                seq = cur.lastrowid
                for r in {r["case"]: r for r in rs}.values():
                    conn.execute("INSERT INTO results VALUES(?,?,?,?,?)", (seq, r["case"], r["suite"], r.get("backend"), r["verdict"]))
                    conn.executemany("INSERT INTO metrics VALUES(?,?,?,?,?,?)", [(seq, r["case"], *m) for m in metric_rows(r)])
                added += 1
        conn.execute("COMMIT")
    except sqlite3.DatabaseError as e:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(e, sqlite3.OperationalError):
            raise
        raise corrupt(db, conn, e)  # a page broke under the read: say which, not "check disk space"
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()
    return added, present


def main_add(a):
    with atomic.file_lock(a.db, "history add"):  # one writer per folder, as a run's --out
        added, present = add(a.db, a.records, a.allow_incomplete)
    print(f"history {a.db}: {added} run(s) added, {present} already present")
    return PASS
