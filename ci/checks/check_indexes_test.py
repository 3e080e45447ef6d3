"""Self-test of check_indexes.py: indexes that list every file pass; a page or a script left out,
a listed file that does not exist and a missing index fail; a NOT_LISTED pattern (a check's
self-test) needs no line."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_indexes.py")
CI_INDEX = "[build.sh](build.sh) [check](checks/check_x.py)\n"


def check(root):
    return subprocess.run([sys.executable, SCRIPT, str(root)], capture_output=True, text=True)


def repo(tmp_path, index, ci_index=CI_INDEX, pages=("DESIGN.md", "CI.md", "guides/HOWTO.md")):
    root = tmp_path / "repo"
    for rel in [f"docs/{p}" for p in pages] + ["docs/data.json",
                                                  "ci/build.sh", "ci/checks/check_x.py", "ci/checks/check_x_test.py"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# a file\n")
    (root / "docs" / "README.md").write_text(index)
    (root / "ci" / "README.md").write_text(ci_index)
    return root


FULL = "- [DESIGN.md](DESIGN.md) — design\n- [CI.md](CI.md#top) — CI\n- [HOWTO](guides/HOWTO.md)\n"


def test_every_file_listed_passes(tmp_path):
    r = check(repo(tmp_path, FULL + "[lab](../lab/README.md) [web](https://jax.dev)\n```\n[x](GONE.md)\n```\n"))
    assert r.returncode == 0, r.stdout


def test_a_page_left_out_fails(tmp_path):
    r = check(repo(tmp_path, "- [DESIGN.md](DESIGN.md)\n- [HOWTO](guides/HOWTO.md)\n"))
    assert r.returncode == 1
    assert "docs/CI.md is not listed in docs/README.md" in r.stdout


def test_a_script_left_out_fails(tmp_path):
    r = check(repo(tmp_path, FULL, ci_index="[check](checks/check_x.py)\n"))
    assert r.returncode == 1
    assert "ci/build.sh is not listed in ci/README.md" in r.stdout


def test_a_listed_file_that_is_not_there_fails(tmp_path):
    r = check(repo(tmp_path, FULL + "- [OLD.md](OLD.md) — gone\n"))
    assert r.returncode == 1
    assert "docs/README.md:4: docs/OLD.md is listed but does not exist" in r.stdout


def test_no_index_is_bad_input(tmp_path):
    r = check(tmp_path)
    assert r.returncode == 4 and "hint:" in r.stderr
