#!/usr/bin/env bash
# expect_output.sh REGEX COMMAND...: COMMAND must exit 0 and print a line matching REGEX
# (grep -E), e.g. a program that prints what it is but does not check it itself.
set -uo pipefail
pattern=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
[ $status -eq 0 ] || { echo "FAIL: exit status $status"; exit 1; }
grep -Eq -- "$pattern" <<<"$output" || { echo "FAIL: no line matches '$pattern'"; exit 1; }
