"""Self-test of check_tracker_refs.py: it fails (exit 1, each reference named with its line) on
tracker numbers in code and docs, and passes a third party's issue the same file links to."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_tracker_refs.py")


def tree(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def check(root):
    return subprocess.run([sys.executable, SCRIPT, str(root)], capture_output=True, text=True)


def test_each_form_of_tracker_reference_fails(tmp_path):
    r = check(tree(tmp_path, {"a.cc": "// the gate (issue 34): fast\n",
                              "docs/p.md": "# Raw MPI (issue 30 §1)\nok\nRaised (stop 12) to 4\n",
                              "b.py": "x = 1  # as in (#45)\n", "c.sh": "# see 19 §3\n"}))
    assert r.returncode == 1
    for where in ("a.cc:1: 'issue 34'", "docs/p.md:1: 'issue 30'", "docs/p.md:3: 'stop 12'",
                  "b.py:1: '(#45)'", "c.sh:1: '§3'"):
        assert where in r.stderr, r.stderr
    assert "hint:" in r.stderr


def test_a_linked_third_party_issue_and_plain_words_pass(tmp_path):
    r = check(tree(tmp_path, {"docs/m.md": "NVIDIA on nccl-tests issue #290 says so\n\n"
                                           "([issue 290](https://github.com/NVIDIA/nccl-tests/issues/290))\n",
                              "a.cc": "// the run #11 of the history; stops the loop; a non-issue\n"}))
    assert r.returncode == 0, r.stderr


def test_an_unlinked_number_beside_a_linked_one_fails(tmp_path):
    r = check(tree(tmp_path, {"docs/m.md": "[issue 290](https://github.com/x/y/issues/290), issue 291\n"}))
    assert r.returncode == 1 and "'issue 291'" in r.stderr


def test_todays_tree_has_none():
    r = check(os.path.join(os.path.dirname(SCRIPT), "..", ".."))
    assert r.returncode == 0, r.stderr
