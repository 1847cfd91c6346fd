#!/usr/bin/env python3
"""The layout rules of the developers' guide, checked on the source tree.

    layout_check.py SOURCE_DIR [--readme README.md]

- No code file over 500 lines, except the kernels (KERNELS below).
- No function over 80 lines (C++, Python, Fortran), except declarative
  tables (TABLES below, each with its reason).
- The README's layout table names every folder of the tree that holds
  tracked files, and nothing that is not there.
- Every script under runs/ that starts with "#!" is executable in git (the
  docs run them as `runs/x.py`; a 644 script says "Permission denied").

Exits 1 naming every offence; prints what it checked either way.
"""
import argparse
import ast
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
KERNELS = {"lu/sweep_planes.cpp", "lu/sweep_hyperplanes.cpp", "lu/residual.cpp"}  # the hot loops, kept whole for the compiler and the reader
TABLES = {  # "path:function": why a declarative table may be longer
    "lu/run/option_table.cpp:options": "the option table of lu, lu-sim and the C API: one row per option",
}
CODE_SUFFIXES = (".cpp", ".hpp", ".h", ".inc", ".py", ".f", ".f90", ".F90", ".sh", ".cmake", ".c")
NOT_FOLDERS_OF_THE_DESIGN = {".", ".ci"}  # the top level itself; CI's one script


def tracked_files(root):
    out = subprocess.check_output(["git", "-C", root, "ls-files"], text=True)
    return [f for f in out.splitlines() if os.path.isfile(os.path.join(root, f))]


def is_code(path):
    return path.endswith(CODE_SUFFIXES) or os.path.basename(path) == "CMakeLists.txt"


def without_comments_and_strings(src):
    """C++ text with comments and literals blanked, line breaks kept."""
    keep_lines = lambda m: "\n" * m.group(0).count("\n")  # noqa: E731
    src = re.sub(r'R"(\w*)\((.*?)\)\1"', lambda m: '""' + keep_lines(m), src, flags=re.S)
    src = re.sub(r"/\*.*?\*/", keep_lines, src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", src)


FUNCTION_HEAD = re.compile(r"\)\s*(const|noexcept|override|final|mutable|->[^{;]*|\s)*$")
CONTROL_HEAD = re.compile(r"\b(if|for|while|switch|catch)\s*\(")
SCOPE_HEAD = re.compile(r"\b(namespace|struct|class|enum|union)\b[^()]*$|extern\s*\"\"$")


def cpp_functions(src):
    """(name, first line, lines) of each outermost function body in C++ source."""
    s = without_comments_and_strings(src)
    found, stack, line, head_start = [], [], 1, 0
    for i, ch in enumerate(s):
        if ch == "\n":
            line += 1
        elif ch == "{":
            head = s[head_start:i].strip()
            kind = "block"
            if SCOPE_HEAD.search(head):
                kind = "scope"
            elif all(k == "scope" for k, _, _ in stack) and FUNCTION_HEAD.search(head) and not CONTROL_HEAD.search(
                head.splitlines()[-1] if head else ""
            ):
                kind = "function"
            name = re.findall(r"([\w:~]+)\s*\(", head)
            stack.append((kind, line, name[0] if name else "?"))
            head_start = i + 1
        elif ch == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    found.append((name, start, line - start + 1))
            head_start = i + 1
        elif ch == ";":
            head_start = i + 1
    return found


def python_functions(src):
    tree = ast.parse(src)
    return [
        (n.name, n.lineno, n.end_lineno - n.lineno + 1)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


FORTRAN_START = re.compile(
    r"^\s*(?:(?:pure|elemental|recursive|module|integer|real|logical|complex|character|double\s+precision|"
    r"type\s*\(\s*\w+\s*\))(?:\s*\([^)]*\))?\s+)*(subroutine|function|program)\s+(\w+)",
    re.I,
)
FORTRAN_END = re.compile(r"^\s*end\s*(?:(?:subroutine|function|program)(?:\s+\w+)?)?\s*$", re.I)


def fortran_functions(src, fixed_form):
    """(name, first line, lines) of each program unit and contained procedure;
    a unit's length runs to its CONTAINS (its procedures are counted alone)."""
    found, open_units = [], []
    for number, text in enumerate(src.splitlines(), 1):
        if fixed_form and text[:1] in "cC*!":
            continue
        text = text.split("!")[0]
        m = FORTRAN_START.match(text)
        if m and not re.match(r"^\s*module\s+procedure", text, re.I):
            open_units.append([m.group(2), number, None])
        elif open_units and re.match(r"^\s*contains\s*$", text, re.I):
            open_units[-1][2] = open_units[-1][2] or number
        elif open_units and FORTRAN_END.match(text):
            name, start, body_end = open_units.pop()
            found.append((name, start, (body_end or number) - start + 1))
    return found


def functions_of(path, src):
    if path.endswith((".cpp", ".hpp", ".h", ".inc", ".c")) and not path.endswith("_body.inc"):
        return cpp_functions(src)
    if path.endswith(".py"):
        return python_functions(src)
    if path.endswith((".f", ".f90", ".F90")) or path.endswith("_body.inc"):
        return fortran_functions(src, path.endswith(".f"))
    return []


def readme_folders(readme):
    """The first column of the README's layout table: rows like | `lu/mpi/` | ... |."""
    rows = re.findall(r"^\|\s*`([\w./-]+)/`\s*\|", open(readme).read(), re.M)
    return {r.rstrip("/") for r in rows}


def unexecutable_scripts(root):
    """runs/ files with a #! line that git records as 100644."""
    out = subprocess.check_output(["git", "-C", root, "ls-files", "-s", "runs"], text=True)
    for line in out.splitlines():
        mode, _, _, path = line.split(None, 3)
        full = os.path.join(root, path)
        if mode == "100644" and os.path.isfile(full):
            with open(full, "rb") as f:
                if f.read(2) == b"#!":
                    yield path


def stderr_streams(root, files):
    """Diagnostics written to std::cerr outside the tests: each << is its own write, and
    the launcher's pipe let a rank's stdout land inside such a line (CI saw it). One line,
    one write: print_line_to_stderr (lu/mpi/messages.hpp)."""
    for path in files:
        if path.startswith("tests/") or not path.endswith((".cpp", ".hpp")):
            continue
        src = without_comments_and_strings(open(os.path.join(root, path), errors="replace").read())
        for number, line in enumerate(src.splitlines(), 1):
            if "std::cerr" in line:
                yield f"{path}:{number}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source_dir")
    ap.add_argument("--readme", default="README.md")
    args = ap.parse_args()
    root = args.source_dir
    files = tracked_files(root)
    problems, functions = [], 0
    for path in filter(is_code, files):
        src = open(os.path.join(root, path), errors="replace").read()
        lines = src.count("\n")
        if lines > MAX_FILE_LINES and path not in KERNELS:
            problems.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES} outside the kernels)")
        for name, start, length in functions_of(path, src):
            functions += 1
            if length > MAX_FUNCTION_LINES and f"{path}:{name}" not in TABLES:
                problems.append(f"{path}:{start}: function {name} is {length} lines (at most {MAX_FUNCTION_LINES})")
    folders = {os.path.dirname(f) or "." for f in files} - NOT_FOLDERS_OF_THE_DESIGN
    listed = readme_folders(os.path.join(root, args.readme))
    for folder in sorted(folders - listed):
        problems.append(f"{args.readme}: the layout table does not name folder {folder}/")
    for folder in sorted(listed - folders):
        problems.append(f"{args.readme}: the layout table names {folder}/, which holds no tracked file")
    for path in unexecutable_scripts(root):
        problems.append(f"{path}: starts with #! but is not executable (git update-index --chmod=+x)")
    for place in stderr_streams(root, files):
        problems.append(f"{place}: writes to std::cerr in pieces (use print_line_to_stderr: one line, one write)")
    print(f"checked {sum(map(is_code, files))} code files, {functions} functions, {len(folders)} folders")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
