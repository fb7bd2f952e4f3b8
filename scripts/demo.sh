#!/usr/bin/env bash
# Sets up, builds, and audits a shipped example bundle: a softmax kernel
# whose attention scores lost their clamp (tests/corpus/bug_a_attention_noclamp).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" || exit 3
stagecheck=${STAGECHECK_BUILD_DIR:-$root/build}/tools/stagecheck
cd "$root"
echo "\$ stagecheck audit tests/corpus/bug_a_attention_noclamp"
"$stagecheck" audit tests/corpus/bug_a_attention_noclamp
status=$?
# The example holds a bug: exit 1 (a counterexample) is the expected outcome.
[[ $status -eq 1 ]] && exit 0
exit $status
