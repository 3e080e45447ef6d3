"""The table scripts' refusal of bad input (a missing or garbled raw file, a wrong argument):
the error and a hint on stderr, exit 4, tandem's code for bad input (reports/exit_codes.py)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from reports.exit_codes import BAD_INPUT  # noqa: E402


def refuse(error, hint):
    print(f"error: {error}\n  hint: {hint}", file=sys.stderr)
    sys.exit(BAD_INPUT)


def load_json(path, key, hint):
    """The JSON document at path, refused with the hint when the file is missing,
    is not JSON (cut off mid-write) or has no `key`."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        refuse(f"cannot read {path}: {e.strerror}", hint)
    except ValueError as e:
        refuse(f"{path} is garbled, not JSON ({e})", hint)
    if not isinstance(doc, dict) or key not in doc:
        refuse(f'{path} has no "{key}": not the file the table reads', hint)
    return doc
