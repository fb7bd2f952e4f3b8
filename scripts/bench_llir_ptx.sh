#!/usr/bin/env bash
# Times `stagecheck check --from llir --to ptx --meta` on every kernel of the
# corpus, for Triton's PTX and for llc-22's re-lowering of the same LLVM IR,
# and prints per-kernel times (and peak memory) and the medians per class:
#   elementwise  no tt.reduce, no tt.dot in the kernel's TTGIR
#   reduction    tt.reduce
#   matmul       tt.dot
# usage: scripts/bench_llir_ptx.sh [RUNS]   (default 1; the median of the
# runs is the kernel's time)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STAGECHECK_BUILD_DIR:-$root/build}
stagecheck=$build/tools/stagecheck
runs=${1:-1}
[[ -x $stagecheck ]] || { echo "build first: scripts/build.sh" >&2; exit 2; }
llc=$(command -v llc-22 || echo /usr/lib/llvm-22/bin/llc)

python3 - "$stagecheck" "$root/tests/corpus" "$runs" "$llc" <<'PY'
import glob, json, os, resource, statistics, subprocess, sys, tempfile, time
stagecheck, corpus, runs, llc = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tmp = tempfile.mkdtemp()
rows = []
for llir in sorted(glob.glob(os.path.join(corpus, "*", "kernels", "*", "*.llir"))):
    base = llir[:-5]
    text = open(base + ".ttgir").read()
    kind = "matmul" if "tt.dot" in text else "reduction" if "tt.reduce" in text else "elementwise"
    meta = base + ".json"
    fusion = json.load(open(meta)).get("enable_fp_fusion", True)
    llc_ptx = os.path.join(tmp, os.path.basename(base) + ".llc.ptx")
    subprocess.run([llc, "-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90", "-O3",
                    "-fp-contract=" + ("fast" if fusion else "off"), llir, "-o", llc_ptx],
                   check=True)
    for source, ptx in (("triton", base + ".ptx"), ("llc", llc_ptx)):
        times, verdict = [], "?"
        for _ in range(runs):
            start = time.perf_counter()
            out = subprocess.run([stagecheck, "check", "--from", "llir", llir, "--to", "ptx",
                                  ptx, "--meta", meta], capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            verdict = next((l for l in out.stdout.splitlines() if l.startswith("verdict:")),
                           "verdict: (none) exit %d" % out.returncode)
        bundle = llir.split(os.sep)[-4]
        rows.append((source, kind, bundle, statistics.median(times), verdict))
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%-7s %-12s %-28s %8s  %s" % ("ptx", "class", "bundle", "median", "verdict"))
for source, kind, bundle, t, verdict in rows:
    print("%-7s %-12s %-28s %7.3fs  %s" % (source, kind, bundle, t, verdict[9:80]))
print()
for source in ("triton", "llc"):
    for kind in ("elementwise", "reduction", "matmul", "all"):
        ts = [t for s, k, _, t, _ in rows if s == source and (k == kind or kind == "all")]
        if ts:
            print("%-7s %-12s kernels %2d   median %.3fs   max %.3fs" %
                  (source, kind, len(ts), statistics.median(ts), max(ts)))
print("peak memory of one check (largest child): %.0f MB" % peak)
PY
