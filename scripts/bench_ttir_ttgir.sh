#!/usr/bin/env bash
# Times `stagecheck check --from ttir --to ttgir` on every kernel of the
# corpus and prints per-kernel times and the median per class:
#   elementwise  no tt.reduce, no tt.dot, no scf.for
#   reduction    tt.reduce (and loops around it)
#   matmul       tt.dot
# usage: scripts/bench_ttir_ttgir.sh [RUNS]   (default 3; the median of the
# runs is the kernel's time)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STAGECHECK_BUILD_DIR:-$root/build}
stagecheck=$build/tools/stagecheck
runs=${1:-3}
[[ -x $stagecheck ]] || { echo "build first: scripts/build.sh" >&2; exit 2; }

python3 - "$stagecheck" "$root/tests/corpus" "$runs" <<'EOF'
import glob, os, statistics, subprocess, sys, time
stagecheck, corpus, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = []
for ttir in sorted(glob.glob(os.path.join(corpus, "*", "kernels", "*", "*.ttir"))):
    ttgir = ttir[:-5] + ".ttgir"
    text = open(ttgir).read()
    kind = ("matmul" if "tt.dot" in text else
            "reduction" if "tt.reduce" in text else
            "loop" if "scf.for" in text else "elementwise")
    times, verdict = [], "?"
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run([stagecheck, "check", "--from", "ttir", "--to", "ttgir",
                              ttir, ttgir], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        verdict = next((l for l in out.stdout.splitlines() if l.startswith("verdict:")),
                       "verdict: (none) exit %d" % out.returncode)
    bundle = ttir.split(os.sep)[-4]
    rows.append((kind, bundle, statistics.median(times), verdict))
print("%-12s %-28s %8s  %s" % ("class", "bundle", "median", "verdict"))
for kind, bundle, t, verdict in rows:
    print("%-12s %-28s %7.3fs  %s" % (kind, bundle, t, verdict[9:80]))
print()
for kind in ("elementwise", "reduction", "loop", "matmul"):
    ts = [t for k, _, t, _ in rows if k == kind]
    if ts:
        print("%-12s kernels %2d   median %.3fs   max %.3fs" %
              (kind, len(ts), statistics.median(ts), max(ts)))
EOF
