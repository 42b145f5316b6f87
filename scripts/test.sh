#!/usr/bin/env bash
# README command 2 (and what CI runs): install dependencies, build with
# warnings as errors, and run the whole test suite with CTest; then the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer (clang,
# build-sanitize/), and each fuzz target briefly on its committed corpus
# (docs/testing.md). PODSIM_TEST_SANITIZERS=0 stops after the release suite;
# PODSIM_FUZZ_SECONDS sets the fuzz time per target (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DPODSIM_WERROR=ON
jobs=$(nproc || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs"
if [ "${PODSIM_TEST_SANITIZERS:-1}" != 0 ]; then
  scripts/test-sanitizers.sh --ci
  scripts/fuzz.sh --no-build --quick --jobs "$jobs" --seconds "${PODSIM_FUZZ_SECONDS:-5}"
fi
