"""Self-test of check_function_length.py on synthetic sources: a long function fails and a short
one passes; braces in strings, comments, raw strings and preprocessor lines confuse nothing; a
long namespace, struct or initializer table is no function; a lambda inside a function counts
toward it; multi-line signatures, constructors and Python defs are measured from their first
line."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_function_length import cpp_functions, py_functions  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_function_length.py")


def body(n):
    """n statement lines."""
    return "".join(f"  x += {i};\n" for i in range(n))


def fn(name, n_lines):
    """A function of exactly n_lines lines (signature and closing brace included)."""
    return f"int {name}(int x) {{\n{body(n_lines - 2)}}}\n"


def check(tmp_path, files, *args):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return subprocess.run([sys.executable, SCRIPT, str(tmp_path), *args], capture_output=True, text=True)


def lengths(src):
    return {name: n for _, name, n in cpp_functions(src)}


def test_long_function_fails_and_is_named(tmp_path):
    r = check(tmp_path, {"a.cc": fn("short", 80) + fn("too_long", 81), "b/c.cu": fn("k", 10)})
    assert r.returncode == 1, r.stdout
    assert "FAIL: a.cc:81 too_long: 81 lines > 80" in r.stdout
    assert "short" not in r.stdout.split("longest functions:")[0].split("\n", 1)[1]
    assert "     81  a.cc:81 too_long" in r.stdout


def test_short_functions_pass(tmp_path):
    r = check(tmp_path, {"a.cc": fn("f", 80) + fn("g", 3), "x.h": fn("h", 5), "notes.md": "{" * 5})
    assert r.returncode == 0, r.stdout
    assert "3 functions in 2 files" in r.stdout and "longest a.cc:1 f at 80" in r.stdout


def test_budget_option(tmp_path):
    assert check(tmp_path, {"a.cc": fn("f", 30)}, "--budget", "29").returncode == 1


def test_braces_in_strings_comments_raw_strings_and_preprocessor():
    src = ('int f(int x) {\n'
           '  const char* s = "}}}{";  // }}\n'
           '  char c = \'}\', d = \'\\\'\';\n'
           '  /* } { }\n'
           '  } */\n'
           '  auto r = R"js(}{ ")" })js";\n'
           '  auto q = u8R"(})";\n'
           '#define CLOSE }\n'
           '#define MULTI { \\\n'
           '   }\n'
           '  int big = 1\'000\'000;\n'
           '  return x;\n'
           '}\n'
           'int g() { return 1; }\n')
    assert lengths(src) == {"f": 13, "g": 1}


def test_namespace_struct_class_and_tables_are_not_functions():
    table = "const Row kRows[] = {\n" + "".join(f"    {{\"r{i}\", {i}, {{1, 2}}}},\n" for i in range(100)) + "};\n"
    members = "".join(f"  int m{i} = {i};\n" for i in range(100))
    src = ("namespace a {\nnamespace {\n" + table + "struct S {\n" + members + "  int get() const { return m0; }\n};\n"
           "class C : public S {\n public:\n" + members + "  C(int v) : S(), n_{v}, w_(v) {\n    n_ += 1;\n  }\n"
           "  ~C() override {}\n private:\n  int n_, w_;\n};\nenum class E : int {\n" + members.replace("int ", "").replace(";", ",") + "};\n"
           "std::vector<int> kList{\n" + "1,\n" * 90 + "};\n}  // namespace\n" + fn("f", 4) + "}  // namespace a\n"
           'extern "C" {\n' + fn("c_entry", 3) + "}\n")
    assert lengths(src) == {"get": 1, "C": 3, "~C": 1, "f": 4, "c_entry": 3}


def test_lambda_inside_a_function_counts_toward_it():
    src = ("void run(std::vector<int>& v) {\n"
           "  auto each = [&](int x) {\n" + body(90) + "  };\n"
           "  std::sort(v.begin(), v.end(), [](int a, int b) { return a < b; });\n"
           "}\n")
    assert lengths(src) == {"run": 95}
    # A lambda standing alone in a table is measured as a function of its own.
    table = ("const Rule kRules[] = {\n  {\"add\", [](int a) {\n" + body(85) + "   }},\n"
             "  {\"neg\", [](int a) { return -a; }},\n};\n")
    assert sorted(n for _, _, n in cpp_functions(table)) == [1, 87]


def test_multi_line_signatures_and_qualified_names_start_at_their_first_line():
    src = ("template <typename T,\n          typename U>\n"
           "std::map<int, T> Foo::make(const std::vector<T>& a,\n"
           "                           U b) const noexcept {\n" + body(3) + "}\n"
           "auto h(int x)\n    -> int {\n  return x;\n}\n"
           "Foo::Foo(int a,\n         int b)\n    : a_(a),\n      b_{b} {\n" + body(2) + "}\n"
           "bool operator==(const A& a, const B& b) { return true; }\n"
           "TEST(Suite, Name) {\n" + body(1) + "}\n")
    got = {name: (line, n) for line, name, n in cpp_functions(src)}
    assert got == {"Foo::make": (1, 8), "h": (9, 4), "Foo::Foo": (13, 7), "operator==": (20, 1),
                   "TEST(Suite, Name)": (21, 3)}


def test_python_defs_are_measured_with_ast(tmp_path):
    src = "def f():\n" + "    x = 1\n" * 85 + "\n\nclass K:\n    def m(self):\n        return 1\n"
    assert py_functions(src, "p.py") == [(1, "f", 86), (90, "m", 2)]
    r = check(tmp_path, {"tool.py": src})
    assert r.returncode == 1 and "FAIL: tool.py:1 f: 86 lines > 80" in r.stdout


def test_unbalanced_braces_are_reported(tmp_path):
    r = check(tmp_path, {"a.cc": "void f() {\n  if (x) {\n}\n"})
    assert r.returncode == 1 and "a.cc: line 1: a '{' is never closed" in r.stdout


def test_empty_tree_is_bad_input(tmp_path):
    r = check(tmp_path, {})
    assert r.returncode == 4 and "hint:" in r.stderr
