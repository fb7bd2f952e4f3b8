#!/usr/bin/env bash
# A second compiler for the same LLVM IR: llc-22 re-lowers every corpus
# kernel's .llir to PTX, and stagecheck must prove the pair as it proves
# Triton's own PTX. Kernels listed in llc-known-gaps.txt (KERNEL REASON)
# must stay unknown; a gap that closes fails the test, so the list only
# shrinks.
#
# usage: run_llc_tests.sh STAGECHECK CORPUS_DIR [LLC]
set -u
stagecheck=$1
corpus=$2
llc=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
[[ -x $python ]] || python=python3
if [[ -z $llc ]]; then
  for c in llc-22 /usr/lib/llvm-22/bin/llc; do
    command -v "$c" >/dev/null && { llc=$c; break; }
  done
fi
[[ -n $llc ]] || { echo "FAIL: llc-22 not found (scripts/setup.sh installs llvm-22)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line per launch: kernel, .llir, metadata .json (unique kernels only).
$python - "$corpus" >"$tmp/launches" <<'PY'
import json, os, sys
seen = set()
root = sys.argv[1]
for b in sorted(os.listdir(root)):
    m = os.path.join(root, b, "manifest.json")
    if not os.path.isfile(m):
        continue
    for s in json.load(open(m))["steps"]:
        if s.get("kind") != "launch":
            continue
        llir = os.path.join(root, b, s["files"]["llir"])
        if llir in seen:
            continue
        seen.add(llir)
        f = {k: os.path.join(root, b, v) for k, v in s["files"].items()}
        print(b, s["kernel"], f["llir"], f["metadata"])
PY

fails=0 total=0 proved=0
while read -r bundle kernel llir meta; do
  total=$((total + 1))
  name="$bundle/$kernel"
  # The options Triton gives its own LLVM: fp contraction only where the
  # kernel was compiled with enable_fp_fusion.
  contract=$($python -c 'import json,sys; print("fast" if json.load(open(sys.argv[1])).get("enable_fp_fusion", True) else "off")' "$meta")
  ptx=$tmp/$kernel.ptx
  if ! "$llc" -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -O3 -fp-contract="$contract" "$llir" -o "$ptx" 2>"$tmp/llc.err"; then
    echo "FAIL: $name: llc does not compile it: $(head -3 "$tmp/llc.err")"
    fails=$((fails + 1))
    continue
  fi
  start=$(date +%s%N)
  "$stagecheck" check --from llir "$llir" --to ptx "$ptx" --meta "$meta" >"$tmp/out" 2>&1
  code=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  verdict=$(grep '^verdict:' "$tmp/out" | head -1)
  gap=$(grep -E "^$kernel " "$here/llc-known-gaps.txt" 2>/dev/null | head -1)
  if [[ -n $gap ]]; then
    if [[ $code -ne 2 ]]; then
      echo "FAIL: $name: listed in llc-known-gaps.txt but gives exit $code ($verdict): remove it from the list"
      fails=$((fails + 1))
    else
      echo "gap:  $name  ${ms} ms  $verdict"
    fi
  elif [[ $code -eq 0 ]]; then
    proved=$((proved + 1))
    echo "ok:   $name  ${ms} ms"
  else
    echo "FAIL: $name: exit $code, $ms ms"
    cat "$tmp/out"
    fails=$((fails + 1))
  fi
done <"$tmp/launches"
echo "llc's PTX: $proved of $total corpus kernels proved, $fails unexpected"
if [[ $total -eq 0 ]]; then
  echo "FAIL: no corpus kernel found under $corpus"; fails=$((fails + 1))
fi

# Codegen cases in the manner of LLVM's NVPTX tests (llc/*.ll: arithmetic,
# fma, cvt, setp/selp, ld/st, device functions), compiled without fp
# fusion: only the contractions the IR marks are allowed. Each file says its
# verdict; a mutant also says, as "; mutate: SED-EXPRESSION", how its PTX
# is damaged after llc wrote it.
echo '{"enable_fp_fusion": false}' >"$tmp/strict.json"
cases=0
for ll in "$here"/llc/*.ll; do
  cases=$((cases + 1))
  name=$(basename "$ll" .ll)
  want=$(sed -n 's/^; expect: //p' "$ll" | head -1)
  ptx=$tmp/case-$name.ptx
  if ! "$llc" -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -O3 "$ll" -o "$ptx" 2>"$tmp/llc.err"; then
    echo "FAIL: llc/$name: llc does not compile it: $(head -3 "$tmp/llc.err")"
    fails=$((fails + 1))
    continue
  fi
  mutate=$(sed -n 's/^; mutate: //p' "$ll" | head -1)
  if [[ -n $mutate ]]; then
    sed -e "$mutate" "$ptx" >"$ptx.mutant"
    if cmp -s "$ptx" "$ptx.mutant"; then
      echo "FAIL: llc/$name: the mutation '$mutate' changes nothing"
      fails=$((fails + 1))
      continue
    fi
    mv "$ptx.mutant" "$ptx"
  fi
  "$stagecheck" check --from llir "$ll" --to ptx "$ptx" --meta "$tmp/strict.json" >"$tmp/out" 2>&1
  got=$(sed -n 's/^verdict: \([a-z]*\).*/\1/p' "$tmp/out" | head -1)
  if [[ $got == "$want" ]]; then
    echo "ok:   llc/$name  $got"
  else
    echo "FAIL: llc/$name: $got, expected $want"
    cat "$tmp/out"
    fails=$((fails + 1))
  fi
done
echo "codegen cases: $cases checked"
[[ $total -gt 0 && $cases -gt 0 && $fails -eq 0 ]]
