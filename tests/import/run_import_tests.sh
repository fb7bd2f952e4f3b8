#!/usr/bin/env bash
# `stagecheck import` on a real TORCH_COMPILE_DEBUG run and its caches must
# give the bundle capture.py made from the same run, and both must audit
# identically. Bad import input exits 3 with one line.
set -u
stagecheck=$1
root=$2
python=/usr/bin/python3
[[ -x $python ]] || python=python3
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for case in "$root"/tests/import/*/; do
  name=$(basename "$case")
  out=$tmp/$name
  # Point both options at the common parent, as a user may.
  if ! "$stagecheck" import --torch-debug "$case/raw" --triton-cache "$case/raw" -o "$out" >"$tmp/log" 2>&1; then
    echo "FAIL: $name: import failed"; cat "$tmp/log"; fails=$((fails + 1)); continue
  fi
  bundles=("$out"/*/)
  if [[ ${#bundles[@]} -ne 1 ]]; then
    echo "FAIL: $name: expected one bundle, got ${#bundles[@]}"; fails=$((fails + 1)); continue
  fi
  if ! $python "$root/tests/import/compare_bundles.py" "${bundles[0]}" "$case/captured"; then
    echo "FAIL: $name: imported bundle differs from the captured one"; fails=$((fails + 1))
  fi
  "$stagecheck" audit --json "$tmp/imported.json" "${bundles[0]}" >/dev/null 2>&1
  code_imported=$?
  "$stagecheck" audit --json "$tmp/captured.json" "$case/captured" >/dev/null 2>&1
  code_captured=$?
  [[ $code_imported -eq $code_captured ]] || { echo "FAIL: $name: audit exits $code_imported vs $code_captured"; fails=$((fails + 1)); }
  verdicts() { $python -c '
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["program"]: print("program", p["pair"], p["result"]["verdict"], p["result"]["reason"])
for k in r["kernels"]:
    for p in k["pairs"]: print(k["kernel"], p["pair"], p["result"]["verdict"], p["result"]["reason"])
' "$1"; }
  if ! diff <(verdicts "$tmp/imported.json") <(verdicts "$tmp/captured.json"); then
    echo "FAIL: $name: the two bundles audit differently"; fails=$((fails + 1))
  fi
done

expect_error() { # expect_error PATTERN -- command...
  local pattern=$1; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [[ $got -ne 3 ]] || ! grep -q -- "$pattern" "$tmp/err" || [[ $(wc -l <"$tmp/err") -ne 1 ]]; then
    echo "FAIL: wanted exit 3 and '$pattern' for: $*"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1))
  fi
}
raw=$root/tests/import/inductor_pointwise_chain/raw
expect_error "not a directory" -- "$stagecheck" import --torch-debug "$tmp/none" --triton-cache "$raw" -o "$tmp/x"
expect_error "no output_code.py found" -- "$stagecheck" import --torch-debug "$raw/triton_cache" --triton-cache "$raw" -o "$tmp/x"
expect_error "no Triton cache folder holds kernel" -- "$stagecheck" import --torch-debug "$raw/debug" --triton-cache "$raw/debug" -o "$tmp/x"
expect_error "import needs --output" -- "$stagecheck" import --torch-debug "$raw" --triton-cache "$raw"
mkdir -p "$tmp/broken" && cp -r "$raw/debug" "$tmp/broken/" && cp -r "$raw/triton_cache" "$raw/inductor_cache" "$tmp/broken/"
sed -i 's/def call(self, args):/def kall(self, args):/' "$(find "$tmp/broken/debug" -name output_code.py)"
expect_error "output_code.py:1:1: no call() function" -- "$stagecheck" import --torch-debug "$tmp/broken/debug" --triton-cache "$tmp/broken" -o "$tmp/x"

if [[ $fails -ne 0 ]]; then echo "$fails import test(s) failed"; exit 1; fi
echo "all import tests passed"
