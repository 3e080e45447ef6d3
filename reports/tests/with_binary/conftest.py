# Tests that drive the real `tandem` binary (its path in TANDEM_BIN, set by ctest: see ci/CMakeLists.txt). Without it
# they fail rather than skip: these are the tests that catch a C++ change the Python tools no longer understand.
import os
import subprocess
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tandem():
    path = os.environ.get("TANDEM_BIN")
    if not path or not Path(path).is_file():
        pytest.fail("TANDEM_BIN must name the built tandem binary (ctest sets it; by hand: "
                    "TANDEM_BIN=build/tandem python3 -m pytest reports/tests/with_binary)")

    def run(*args, cwd=None, timeout=600):
        return subprocess.run([path, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout)

    return run
