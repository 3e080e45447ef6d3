"""Self-test of check_markdown_links.py: good links pass; a missing file, a link that leaves
the repository (even to a file that exists) and a broken reference definition fail with the
file and line; links inside code and URLs are not checked."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_markdown_links.py")


def check(root):
    return subprocess.run([sys.executable, SCRIPT, str(root)], capture_output=True, text=True)


def repo(tmp_path, readme, doc="see [back](../README.md#top)\n"):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "DESIGN.md").write_text(doc)
    (root / "README.md").write_text(readme)
    (tmp_path / "outside.md").write_text("beside the clone\n")
    return root


def test_good_links_pass(tmp_path):
    r = check(repo(tmp_path, "[design](docs/DESIGN.md) [docs](docs/) [web](https://jax.dev) [here](#x)\n"
                             "```\n[not a link](../nowhere.md)\n```\n`[code](../x.md)`\n"))
    assert r.returncode == 0, r.stdout


def test_missing_file_fails(tmp_path):
    r = check(repo(tmp_path, "intro\n[gone](docs/GONE.md)\n"))
    assert r.returncode == 1
    assert "README.md:2: docs/GONE.md does not exist" in r.stdout


def test_link_outside_the_repository_fails_even_if_it_exists(tmp_path):
    r = check(repo(tmp_path, "[design](../outside.md)\n"))
    assert r.returncode == 1
    assert "../outside.md points outside the repository" in r.stdout


def test_reference_definition_and_nested_file_are_checked(tmp_path):
    r = check(repo(tmp_path, "[d][1]\n\n[1]: docs/NOPE.md\n", doc="![plot](img/missing.png)\n"))
    assert r.returncode == 1
    assert "README.md:3: docs/NOPE.md does not exist" in r.stdout
    assert "docs/DESIGN.md:1: img/missing.png does not exist" in r.stdout


def test_no_markdown_is_bad_input(tmp_path):
    r = check(tmp_path)
    assert r.returncode == 4 and "hint:" in r.stderr
