#!/usr/bin/env bash
# Makes the project's one Python environment, <repo>/.venv (TANDEM_VENV moves it), which CMake hands to every tool and
# test as TANDEM_PYTHON: Debian's python3 with the pinned packages of ci/requirements.txt (JAX and the NumPy 2 stack it
# needs), none of the system's site packages seen. Without PyPI (offline) the venv sees Debian's packages of ci/deps.txt
# instead and has no JAX: the JAX oracle tests then skip, naming it. Run by ci/install_deps.sh; idempotent: a venv
# already holding this requirements.txt is left as it is. In a log, pip's output goes to results/logs/pip.log
# (ci/quiet.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/quiet.sh"
venv=${TANDEM_VENV:-$root/.venv}
req=$root/ci/requirements.txt
installed=$venv/.tandem-requirements.txt  # the requirements.txt the venv was made from
if [ -x "$venv/bin/python3" ] && cmp -s "$req" "$installed"; then
  echo "python: $venv is up to date with ci/requirements.txt"
  exit 0
fi
command -v python3 >/dev/null || { echo "error: no python3 (apt-get install python3-venv)" >&2; exit 5; }
rm -rf "$venv"
python3 -m venv "$venv" || { echo "error: python3 -m venv failed" >&2; echo "  hint: apt-get install python3-venv" >&2; exit 5; }
if quietly "python: pip install" "$root/results/logs/pip.log" '^ERROR' "$venv/bin/pip" install -q --disable-pip-version-check --timeout 30 --retries 2 -r "$req"; then
  cp "$req" "$installed"
  echo "python: $venv with $("$venv/bin/python3" -c 'import jax, numpy; print("jax", jax.__version__, "numpy", numpy.__version__)')"
  exit 0
fi
echo "warning: could not install ci/requirements.txt from PyPI (offline?): $venv uses Debian's" \
  "numpy/scipy/matplotlib and has no JAX, so the JAX oracle tests will skip" >&2
rm -rf "$venv"
python3 -m venv --system-site-packages "$venv"
