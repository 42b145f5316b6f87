#!/usr/bin/env bash
# README command 2 (and what CI runs): install dependencies, build with
# warnings as errors, and run the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DPODSIM_WERROR=ON
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs"
