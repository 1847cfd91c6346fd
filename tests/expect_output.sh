#!/usr/bin/env bash
# expect_output.sh REGEX COMMAND...: COMMAND must exit 0 and print a line matching REGEX
# (grep -E) on its standard output or its standard error, e.g. a program that prints what
# it is but does not check it itself. The two streams are captured apart: mpirun forwards
# them separately, and merged they can splice a warning into the middle of a header line
# (seen in CI: "dt: lu: warning: ...\n0.5  Ranks: 2").
set -uo pipefail
pattern=$1
shift
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
"$@" >"$work/out" 2>"$work/err"
status=$?
cat "$work/out"
cat "$work/err" >&2
[ $status -eq 0 ] || { echo "FAIL: exit status $status"; exit 1; }
grep -Eq -- "$pattern" "$work/out" "$work/err" || { echo "FAIL: no line matches '$pattern'"; exit 1; }
