# Atomic file writes: write a temporary file next to the target, then os.replace it, so a
# reader (CI, a browser, a crashed run) never sees half a report or half a baseline.
import contextlib
import fcntl
import os
import tempfile
from pathlib import Path

from reports.exit_codes import BadInput


def write_bytes(path, data):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def out_dir_lock(folder, command):
    """Holds the flock `tandem run` takes on its --out (harness/out_dir_lock.h), so no
    other tandem writes into `folder` meanwhile; the kernel drops it on exit. Every writer of
    reports/ (report, merge, gate --summary, history, baseline) takes it on the folder it
    writes, so none replaces a running run's summary.md."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BadInput(f"{command}: another tandem run is writing to --out {folder}",
                       "wait for it to finish, or pass another --out directory") from None
    try:
        yield
    finally:
        os.close(fd)


def file_lock(path, command):
    """out_dir_lock on the folder holding the file `path` (a --summary, a --db, a baseline)."""
    return out_dir_lock(Path(path).absolute().parent, command)


def input_folders(paths):
    """The real folders of the inputs `paths` (a run directory, or a file's folder once symlinks
    are resolved): an input reached through a link lives where the link points, not beside it."""
    return [Path(os.path.realpath(p)) if os.path.isdir(p) else Path(os.path.realpath(p)).parent for p in paths]


def refuse_input(path, inputs, flag, hint, what="also an input"):
    """BadInput when `path` is one of `inputs` (real paths: a symlink or another spelling is
    the same file), so an output option never replaces what the command reads."""
    for i in inputs if path else ():
        if i and os.path.realpath(i) == os.path.realpath(path):
            raise BadInput(f"{flag} {path} is {what} ({i}): tandem never writes over what it reads", hint)


def write_text(path, text):
    write_bytes(path, text.encode("utf-8"))


def save_figure(fig, path):
    """Saves a matplotlib figure as PNG atomically."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    write_bytes(path, buf.getvalue())
