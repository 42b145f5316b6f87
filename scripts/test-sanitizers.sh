#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (clang, -fno-sanitize-recover=all: the first finding fails the test) in its
# own tree, build-sanitize/ (scripts/build-sanitize.sh), then run with CTest.
# CI runs it after the release build (scripts/test.sh); docs/testing.md
# gives its cost. Extra arguments go to ctest (e.g. -R config_).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${PODSIM_SANITIZE_BUILD_DIR:-build-sanitize}
jobs=$(nproc 2>/dev/null || echo 2)
scripts/build-sanitize.sh
# detect_leaks: LeakSanitizer is on by default with ASan on Linux; said here so
# that a leak failing a test is no surprise. abort_on_error gives a core-free
# abort CTest reports as a failure with the report above it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@"
