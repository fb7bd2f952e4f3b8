#!/usr/bin/env bash
# stagecheck corpus as a nightly job uses it: JSON and JUnit reports (the
# JUnit one validated against junit.xsd), shards that partition the corpus,
# a baseline diff, the verdict cache, and exit 3 on bad input.
set -u
stagecheck=$1
corpus=$2
python=/usr/bin/python3
[[ -x $python ]] || python=python3
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The command's features need a few bundles, not the whole corpus (the
# corpus_audit test audits every bundle): a proved pointwise kernel, a
# reduction, a counterexample, a kernel that writes nothing.
sub=$tmp/corpus
mkdir -p "$sub"
for b in tutorial_vector_add inductor_clamp inductor_sum_persistent bug_a_attention_noclamp bug_d_no_write; do
  cp -r "$corpus/$b" "$sub/$b"
done
full_corpus=$corpus
corpus=$sub

"$stagecheck" corpus --jobs 2 --cache "$tmp/cache" --json "$tmp/first.json" --junit "$tmp/first.xml" "$corpus" >"$tmp/first.out" 2>&1
code=$?
[[ $code -ne 3 ]] || { fail "corpus run: input error"; cat "$tmp/first.out"; }
if command -v xmllint >/dev/null; then
  xmllint --noout --schema "$2/junit.xsd" "$tmp/first.xml" 2>"$tmp/xmllint.err" || { fail "JUnit report does not validate"; cat "$tmp/xmllint.err"; }
else
  fail "xmllint is not installed (scripts/setup.sh installs libxml2-utils)"
fi
bundles=$(find "$corpus" -name manifest.json | wc -l)
$python - "$tmp/first.json" "$bundles" <<'PY' || fail "JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "stagecheck-corpus", r["format"]
assert len(r["bundles"]) == int(sys.argv[2]), (len(r["bundles"]), sys.argv[2])
for b in r["bundles"]:
    rows = [x for x in r["results"] if x["bundle"] == b["bundle"]]
    assert rows, f"no results for {b['bundle']}"
    assert any(x["kernel"] is None and x["pair"] == "fx->ttir" for x in rows), b["bundle"]
for x in r["results"]:
    assert x["verdict"] in ("proved", "proved within tolerance", "counterexample", "unknown", "error"), x
    assert x["seconds"] >= 0 and "bound" in x, x
PY

# The second run over the unchanged corpus takes every decided verdict from the cache.
"$stagecheck" corpus --jobs 2 --cache "$tmp/cache" --json "$tmp/second.json" --baseline "$tmp/first.json" "$corpus" >"$tmp/second.out" 2>&1
grep -q "0 newly failing, 0 newly proved" "$tmp/second.out" || { fail "unchanged corpus changed"; cat "$tmp/second.out"; }
$python - "$tmp/first.json" "$tmp/second.json" <<'PY' || fail "cache"
import json, sys
first = json.load(open(sys.argv[1]))["results"]
second = {(x["bundle"], x["kernel"], x["pair"]): x for x in json.load(open(sys.argv[2]))["results"]}
for x in first:
    y = second[(x["bundle"], x["kernel"], x["pair"])]
    assert y["verdict"] == x["verdict"], (x, y)
    # Every checked pair, timeouts included, comes from the cache.
    assert y["cached"] == (not x["reason"].startswith("no checker")), (x, y)
PY

# Shards partition the corpus (one quick pair is enough to see which
# bundles each shard audits).
for k in 1 2 3; do
  "$stagecheck" corpus --no-cache --stages 'ttir->ttgir' --shard "$k/3" --json "$tmp/shard$k.json" "$corpus" >/dev/null 2>&1
done
$python - "$tmp"/shard1.json "$tmp"/shard2.json "$tmp"/shard3.json "$bundles" <<'PY' || fail "shards do not partition the corpus"
import json, sys
seen = []
for f in sys.argv[1:4]:
    seen += [b["dir"] for b in json.load(open(f))["bundles"]]
assert len(seen) == len(set(seen)) == int(sys.argv[4]), (len(seen), len(set(seen)))
PY

# A baseline in which a pair was proved and is no longer.
$python - "$tmp/first.json" "$tmp/edited.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
x = next(x for x in r["results"] if x["verdict"] != "proved")
x["verdict"] = "proved"
json.dump(r, open(sys.argv[2], "w"))
print(x["bundle"], x["pair"])
PY
"$stagecheck" corpus --jobs 2 --cache "$tmp/cache" --baseline "$tmp/edited.json" "$corpus" >"$tmp/third.out" 2>&1
grep -q "1 newly failing" "$tmp/third.out" || { fail "baseline did not report the newly failing pair"; cat "$tmp/third.out"; }

expect3() {
  "$@" >"$tmp/out" 2>"$tmp/err"
  [[ $? -eq 3 && $(wc -l <"$tmp/err") -eq 1 ]] || { fail "wanted exit 3 with one line: $*"; cat "$tmp/out" "$tmp/err"; }
}
expect3 "$stagecheck" corpus "$tmp/no-such-dir"
expect3 "$stagecheck" corpus --shard 4/3 "$corpus"
expect3 "$stagecheck" corpus --shard 0/3 "$corpus"
echo '{"nope": 1}' >"$tmp/bad.json"
expect3 "$stagecheck" corpus --no-cache --baseline "$tmp/bad.json" "$corpus"
expect3 "$stagecheck" corpus
expect3 "$stagecheck" corpus --libdevice "$tmp/no.bc" "$corpus"
expect3 "$stagecheck" corpus --pair-time-limit-s -1 "$corpus"

# A run stopped by a signal to the corpus process alone (a scheduler's, a
# user's kill) stops its audits too, rather than leaving them to finish
# their bundles: here a reduction whose audit takes seconds.
# It leaves no scratch files behind either, and dies of the signal.
mkdir -p "$tmp/slow" "$tmp/scratch"
cp -r "$full_corpus/inductor_softmax" "$tmp/slow/"
TMPDIR="$tmp/scratch" "$stagecheck" corpus --no-cache "$tmp/slow" >"$tmp/stopped.out" 2>&1 &
run=$!
audits() { pgrep -f "stagecheck-corpus-$run/" || true; }
for _ in $(seq 100); do [[ -n $(audits) ]] && break; sleep 0.1; done
if [[ -z $(audits) ]]; then
  fail "no audit seen running under the corpus run"
else
  kill -TERM "$run"
  wait "$run" 2>/dev/null
  status=$?
  for _ in $(seq 50); do [[ -z $(audits) ]] && break; sleep 0.1; done
  [[ -z $(audits) ]] || { fail "audits outlived their corpus run: $(audits)"; pkill -f "stagecheck-corpus-$run/"; }
  [[ $status -eq $((128 + 15)) ]] || fail "a corpus run stopped by SIGTERM exited with $status"
  left=$(ls -A "$tmp/scratch")
  [[ -z $left ]] || fail "a stopped corpus run left scratch files: $left"
fi

if [[ $fails -ne 0 ]]; then echo "$fails corpus command test(s) failed"; exit 1; fi
echo "all corpus command tests passed"
