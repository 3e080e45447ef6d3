# The suite names, read from the one table of them (suites/suites.def, what `tandem list
# --suites` prints): beside the reports package in the source tree and in an installed
# P/share/tandem (runners/CMakeLists.txt installs it), so the gate never keeps its own list.
import re
from pathlib import Path

from reports.exit_codes import InfrastructureError

TABLE = Path(__file__).resolve().parent.parent / "suites" / "suites.def"
ROW = re.compile(r"^TANDEM_SUITE\((\w+),", re.M)


def suite_names():
    """Every suite's name, in the table's order."""
    try:
        names = ROW.findall(TABLE.read_text())
    except OSError as e:
        raise InfrastructureError(f"cannot read the suite table {TABLE}: {e.strerror}",
                                  "run tandem from its build tree, or install it (`cmake --install build --prefix P`)")
    if not names:
        raise InfrastructureError(f"the suite table {TABLE} has no TANDEM_SUITE row")
    return tuple(names)
