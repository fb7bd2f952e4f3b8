#!/usr/bin/env bash
# Sets up, builds, and runs every test with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${STAGECHECK_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
