# `tandem report|gate|history|baseline` run the Python tools in safe-path mode: a reports/
# package in the working directory must not replace tandem's own.


def test_reports_folder_in_cwd_cannot_hijack(tandem, tmp_path):
    fake = tmp_path / "reports"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text("print('HIJACKED')\nraise SystemExit(0)\n")
    for command in (["report", "none.json", "-o", tmp_path / "out"], ["gate", "--current", "none.json"],
                    ["history", "add", "none.json"], ["baseline", "show", "none.json"]):
        p = tandem(*command, cwd=tmp_path)
        assert "HIJACKED" not in p.stdout + p.stderr
        assert p.returncode == 4 and "no such records file" in p.stderr, p.stderr
