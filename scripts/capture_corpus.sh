#!/usr/bin/env bash
# Capture every corpus source in tests/corpus/src into a bundle. Runs from the
# repository root on a machine with torch, triton and an NVIDIA GPU.
#
#   OUT=/some/dir scripts/capture_corpus.sh
#
# inductor_*.py are captured in inductor mode, every other file in launches
# mode, into $OUT/work/<name>/ (with the log beside it as $OUT/work/<name>.log).
# One inductor module is captured again with --keep-raw into
# $OUT/work/raw_<name>/ so that `stagecheck import` has a real
# TORCH_COMPILE_DEBUG directory and caches to read. Everything ends up in
# $OUT/corpus.tar.gz; the summary is $OUT/capture.log. A failed capture is
# logged and the others go on.
set -u
OUT=${OUT:-$PWD/capture-out}
SRC=${SRC:-tests/corpus/src}
JOBS=${CAPTURE_JOBS:-6}
PER_CAPTURE_TIMEOUT=${PER_CAPTURE_TIMEOUT:-300}
RAW_MODULE=${RAW_MODULE:-inductor_pointwise_chain}
PY=${PYTHON:-python3}
WORK=$OUT/work
LOG=$OUT/capture.log
mkdir -p "$WORK"
: >"$LOG"
export PYTHONUNBUFFERED=1

{
  echo "# capture_corpus.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  "$PY" -c 'import sys, torch, triton; print("python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda, "device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)' 2>&1
} | tee -a "$LOG"

capture_one() {
  local f=$1 name mode start rc
  name=$(basename "$f" .py)
  case $name in
    inductor_*) mode=inductor ;;
    *) mode=launches ;;
  esac
  start=$(date +%s)
  timeout "$PER_CAPTURE_TIMEOUT" "$PY" scripts/capture.py "$mode" "$f" -o "$WORK/$name" --name "$name" \
    --scratch "$(mktemp -d /tmp/stagecheck-capture-XXXXXX)" >"$WORK/$name.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "ok    $name ($mode) $(( $(date +%s) - start ))s"
  else
    echo "FAIL  $name ($mode) rc=$rc $(( $(date +%s) - start ))s: $(grep -E 'WARNING|Error|error' "$WORK/$name.log" | tail -n 1 | cut -c1-200)"
  fi
}
export -f capture_one
export PY WORK PER_CAPTURE_TIMEOUT SRC RAW_MODULE

# A raw TORCH_COMPILE_DEBUG directory and caches, for `stagecheck import` tests,
# captured beside the others.
capture_raw() {
  local start=$(date +%s)
  if timeout "$PER_CAPTURE_TIMEOUT" "$PY" scripts/capture.py inductor "$SRC/$RAW_MODULE.py" -o "$WORK/raw_$RAW_MODULE" \
      --name "$RAW_MODULE" --keep-raw --scratch "$(mktemp -d /tmp/stagecheck-raw-XXXXXX)" >"$WORK/raw_$RAW_MODULE.log" 2>&1; then
    echo "ok    raw_$RAW_MODULE (inductor --keep-raw) $(( $(date +%s) - start ))s"
  else
    echo "FAIL  raw_$RAW_MODULE (inductor --keep-raw)"
  fi
}
raw_pid=
if [ -f "$SRC/$RAW_MODULE.py" ]; then
  capture_raw >"$OUT/raw.status" 2>&1 &
  raw_pid=$!
fi

# Past ALL_CAPTURES_TIMEOUT seconds the captures still running are stopped, so
# that whatever was captured is packed.
ls "$SRC"/*.py | timeout "${ALL_CAPTURES_TIMEOUT:-1800}" xargs -P "$JOBS" -I{} bash -c 'capture_one "$@"' _ {} \
  | tee -a "$LOG"
[ -n "$raw_pid" ] && wait "$raw_pid"
[ -f "$OUT/raw.status" ] && cat "$OUT/raw.status" | tee -a "$LOG" && rm -f "$OUT/raw.status"

n_ok=$(grep -c '^ok ' "$LOG")
n_fail=$(grep -c '^FAIL ' "$LOG")
echo "# $n_ok captured, $n_fail failed; work dir $(du -sh "$WORK" | cut -f1)" | tee -a "$LOG"
cp "$LOG" "$WORK/capture.log"
tar -C "$OUT" -czf "$OUT/corpus.tar.gz" work
echo "# corpus.tar.gz $(du -h "$OUT/corpus.tar.gz" | cut -f1)" | tee -a "$LOG"
