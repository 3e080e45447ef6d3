"""The files a check reads: those git tracks under ROOT plus new ones it does not ignore, so
build outputs never count; outside a git checkout, every file under ROOT except build*/ and .*/.
Shared by ci/checks/check_line_budget.py and ci/checks/check_markdown_links.py."""
import os
import subprocess


def repo_files(root, suffixes):
    """Paths relative to root, sorted, ending in one of `suffixes`."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                             capture_output=True, check=True).stdout.decode()
        paths = [p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
            paths += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(p for p in paths if p.endswith(tuple(suffixes)) and os.path.isfile(os.path.join(root, p)))
