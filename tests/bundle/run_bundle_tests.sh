#!/usr/bin/env bash
# Bundles as the audit command meets them: a valid bundle gives a report whose
# JSON follows docs/audit-report.schema.json; every kind of broken bundle
# exits 3 with one line naming the file and the problem.
set -u
stagecheck=$1
root=$2
corpus=$root/tests/corpus
python=/usr/bin/python3
[[ -x $python ]] || python=python3
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # expect CODE PATTERN -- command...
  local code=$1 pattern=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [[ $got -ne $code ]]; then
    echo "FAIL: exit $got, wanted $code: $*"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1)); return
  fi
  if ! grep -q -- "$pattern" "$tmp/out" "$tmp/err"; then
    echo "FAIL: no '$pattern' in output of: $*"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1)); return
  fi
  if [[ $code -eq 3 && $(wc -l <"$tmp/err") -ne 1 ]]; then
    echo "FAIL: error is not one line: $*"; cat "$tmp/err"; fails=$((fails + 1))
  fi
}

# A fresh copy of a real bundle, to break.
fresh() {
  rm -rf "$tmp/b"
  cp -r "$corpus/bug_e_grid_short" "$tmp/b"
}

# The JSON report follows the schema: a proved kernel, a counterexample, a
# kernel that writes nothing, a reduction, an extern call (corpus_audit
# checks the verdicts of every bundle).
for b in "$corpus"/{tutorial_vector_add,bug_a_attention_noclamp,bug_d_no_write,inductor_sum_persistent,inductor_mm_bias_relu}/; do
  [[ -f $b/manifest.json ]] || { echo "FAIL: $b: no such corpus bundle"; fails=$((fails + 1)); continue; }
  name=$(basename "$b")
  "$stagecheck" audit --timeout-ms 20000 --json "$tmp/$name.json" "$b" >/dev/null 2>"$tmp/err"
  code=$?
  if [[ $code -eq 3 ]]; then echo "FAIL: $name: input error: $(cat "$tmp/err")"; fails=$((fails + 1)); continue; fi
  if ! $python "$root/tests/bundle/validate_json.py" "$root/docs/audit-report.schema.json" "$tmp/$name.json"; then
    echo "FAIL: $name: report does not follow the schema"; fails=$((fails + 1))
  fi
  reported=$($python -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$tmp/$name.json")
  [[ $reported -eq $code ]] || { echo "FAIL: $name: exit $code but report says $reported"; fails=$((fails + 1)); }
done

fresh
rm "$tmp/b/kernels/affine_kernel/affine_kernel.ttgir"
expect 3 "manifest.json:[0-9]*:[0-9]*: steps\[0\].files.ttgir: file 'kernels/affine_kernel/affine_kernel.ttgir' is missing" -- "$stagecheck" audit "$tmp/b"

fresh
: >"$tmp/b/kernels/affine_kernel/affine_kernel.ptx"
expect 3 "affine_kernel.ptx' is empty (truncated bundle?)" -- "$stagecheck" audit "$tmp/b"

fresh
head -c 700 "$corpus/bug_e_grid_short/manifest.json" >"$tmp/b/manifest.json"
expect 3 "manifest.json:[0-9]*:[0-9]*: malformed JSON" -- "$stagecheck" audit "$tmp/b"

fresh
sed -i 's/"version": 1/"version": 7/' "$tmp/b/manifest.json"
expect 3 "manifest.json:3:3: unsupported manifest version 7" -- "$stagecheck" audit "$tmp/b"

fresh
sed -i 's/"format": "stagecheck-bundle"/"format": "something-else"/' "$tmp/b/manifest.json"
expect 3 "not a stagecheck bundle" -- "$stagecheck" audit "$tmp/b"

fresh
$python - "$tmp/b/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["steps"][0]["args"][0]["tensor"] = "input9"
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
expect 3 "manifest.json:[0-9]*:[0-9]*: steps\[0\].args\[0\] (x_ptr) names unknown tensor 'input9'" -- "$stagecheck" audit "$tmp/b"

fresh
sed -i 's/"dtype": "f32"/"dtype": "f33"/' "$tmp/b/manifest.json"
expect 3 "unknown dtype 'f33'" -- "$stagecheck" audit "$tmp/b"

fresh
rm "$tmp/b/manifest.json"
expect 3 "missing manifest.json" -- "$stagecheck" audit "$tmp/b"
expect 3 "not a bundle directory" -- "$stagecheck" audit "$tmp/no-such-bundle"
expect 3 "unknown stage pair 'ttir->ptx'" -- "$stagecheck" audit --stages "ttir->ptx" "$corpus/bug_e_grid_short"
expect 3 "audit needs one bundle" -- "$stagecheck" audit
expect 3 "cannot read '$tmp/no.bc'" -- "$stagecheck" audit --libdevice "$tmp/no.bc" "$corpus/bug_e_grid_short"

# A TTGIR that loads without its mask reads beyond the tensor for programs
# past the last block: the audit knows the tensors' sizes, so the TTGIR is
# less defined than the TTIR there.
rm -rf "$tmp/b" && cp -r "$corpus/inductor_clamp" "$tmp/b"
ttgir=$(ls "$tmp"/b/kernels/*/*.ttgir)
sed -i -E 's/(tt\.load %[A-Za-z0-9_#]+), %[A-Za-z0-9_#]+ :/\1 :/' "$ttgir"
expect 1 "load outside the 1024 elements arg0 may reach" -- "$stagecheck" audit --stages 'ttir->ttgir' "$tmp/b"

if [[ $fails -ne 0 ]]; then echo "$fails bundle test(s) failed"; exit 1; fi
echo "all bundle tests passed"
