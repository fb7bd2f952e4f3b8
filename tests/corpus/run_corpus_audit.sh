#!/usr/bin/env bash
# stagecheck audit over every corpus bundle, compared with its expected.json.
set -u
stagecheck=$1
corpus=$2
python=/usr/bin/python3
[[ -x $python ]] || python=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The libdevice Triton 3.6 linked the corpus kernels with (its copy differs
# from the CUDA toolkit's in __nv_erff).
libdevice=()
triton_libdevice=$corpus/../stages/ttgir_to_llir/libdevice/triton-3.6.0-libdevice.10.bc
[[ -f $triton_libdevice ]] && libdevice=(--libdevice "$triton_libdevice")
fails=0 total=0
for b in "$corpus"/*/; do
  [[ -f $b/manifest.json && -f $b/expected.json ]] || continue
  name=$(basename "$b")
  total=$((total + 1))
  start=$(date +%s%N)
  "$stagecheck" audit "${libdevice[@]}" --json "$tmp/r.json" "$b" >"$tmp/out" 2>&1
  code=$?
  echo "$name: exit $code, $((($(date +%s%N) - start) / 1000000)) ms"
  if [[ $code -eq 3 ]]; then echo "$name: input error"; cat "$tmp/out"; fails=$((fails + 1)); continue; fi
  $python "$corpus/../bundle/validate_json.py" "$corpus/../../docs/audit-report.schema.json" "$tmp/r.json" ||
    { echo "$name: report does not follow docs/audit-report.schema.json"; fails=$((fails + 1)); continue; }
  $python "$corpus/check_audit.py" "$tmp/r.json" "$b/expected.json" "$name" "$corpus/known-gaps.txt" "$code" || fails=$((fails + 1))
done
echo "$((total - fails)) of $total corpus bundles audit as expected"
[[ $fails -eq 0 ]]
