#!/usr/bin/env bash
# Times `stagecheck check --from ttgir --to llir --meta` on every kernel of
# the corpus (with the libdevice Triton 3.6 links, as the corpus test does)
# and prints per-kernel time, peak memory (the check and its solver
# processes) and verdict, then the medians per class:
#   elementwise  no tt.reduce, no tt.dot in the kernel's TTGIR
#   reduction    tt.reduce
#   matmul       tt.dot
# usage: scripts/bench_ttgir_llir.sh [RUNS]   (default 1; the median of the
# runs is the kernel's time, the largest run its memory)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STAGECHECK_BUILD_DIR:-$root/build}
stagecheck=$build/tools/stagecheck
runs=${1:-1}
[[ -x $stagecheck ]] || { echo "build first: scripts/build.sh" >&2; exit 2; }
libdevice=$root/tests/stages/ttgir_to_llir/libdevice/triton-3.6.0-libdevice.10.bc

python3 - "$stagecheck" "$root/tests/corpus" "$runs" "$libdevice" <<'PY'
import glob, os, statistics, subprocess, sys, time
stagecheck, corpus, runs, libdevice = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = []
for ttgir in sorted(glob.glob(os.path.join(corpus, "*", "kernels", "*", "*.ttgir"))):
    base = ttgir[:-6]
    text = open(ttgir).read()
    kind = "matmul" if "tt.dot" in text else "reduction" if "tt.reduce" in text else "elementwise"
    times, peaks, verdict = [], [], "?"
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.Popen([stagecheck, "check", "--from", "ttgir", ttgir, "--to", "llir",
                              base + ".llir", "--meta", base + ".json", "--libdevice", libdevice],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        out = p.stdout.read()
        # wait4's usage covers the check and the solver processes it reaped.
        _, status, usage = os.wait4(p.pid, 0)
        times.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)
        verdict = next((l for l in out.splitlines() if l.startswith("verdict:")),
                       "verdict: (none) exit %d" % os.waitstatus_to_exitcode(status))
    bundle = ttgir.split(os.sep)[-4]
    rows.append((kind, bundle, statistics.median(times), max(peaks), verdict))
print("%-12s %-28s %8s %8s  %s" % ("class", "bundle", "median", "peak MB", "verdict"))
for kind, bundle, t, m, verdict in rows:
    print("%-12s %-28s %7.2fs %8.0f  %s" % (kind, bundle, t, m, verdict[9:70]))
print()
for kind in ("elementwise", "reduction", "matmul", "all"):
    sel = [(t, m) for k, _, t, m, _ in rows if k == kind or kind == "all"]
    if sel:
        print("%-12s kernels %2d   median %.2fs   max %.2fs   peak memory %.0f MB" %
              (kind, len(sel), statistics.median(t for t, _ in sel), max(t for t, _ in sel),
               max(m for _, m in sel)))
PY
