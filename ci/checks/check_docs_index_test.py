"""Self-test of check_docs_index.py: an index that lists every page passes; a page left out, a
listed page that does not exist and a missing index fail; folders of NOT_GUIDES are not pages."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_docs_index.py")


def check(root):
    return subprocess.run([sys.executable, SCRIPT, str(root)], capture_output=True, text=True)


def repo(tmp_path, index, pages=("DESIGN.md", "CI.md", "guides/HOWTO.md")):
    root = tmp_path / "repo"
    for page in pages + ("perf/raw/run.md",):  # docs/perf is in NOT_GUIDES
        (root / "docs" / page).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / page).write_text("# a page\n")
    (root / "docs" / "README.md").write_text(index)
    return root


FULL = "- [DESIGN.md](DESIGN.md) — design\n- [CI.md](CI.md#top) — CI\n- [HOWTO](guides/HOWTO.md)\n"


def test_every_page_listed_passes(tmp_path):
    r = check(repo(tmp_path, FULL + "[lab](../lab/README.md) [web](https://jax.dev)\n```\n[x](GONE.md)\n```\n"))
    assert r.returncode == 0, r.stdout


def test_a_page_left_out_fails(tmp_path):
    r = check(repo(tmp_path, "- [DESIGN.md](DESIGN.md)\n- [HOWTO](guides/HOWTO.md)\n"))
    assert r.returncode == 1
    assert "docs/CI.md is not listed in docs/README.md" in r.stdout


def test_a_listed_page_that_is_not_there_fails(tmp_path):
    r = check(repo(tmp_path, FULL + "- [OLD.md](OLD.md) — gone\n"))
    assert r.returncode == 1
    assert "docs/README.md:4: docs/OLD.md is listed but is not a page of docs/" in r.stdout


def test_no_index_is_bad_input(tmp_path):
    r = check(tmp_path)
    assert r.returncode == 4 and "hint:" in r.stderr
