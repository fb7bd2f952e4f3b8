#!/usr/bin/env python3
"""Measures stagecheck on a corpus and prints the tables of docs/BENCHMARKS.md.

usage: scripts/bench.py [--stagecheck PATH] [--jobs N] [--pairs fx->ttir,...] CORPUS_DIR...

Runs `stagecheck corpus` twice over the corpus with an empty verdict cache:
the first run measures every pair (time, verdicts, peak memory); the second
measures how much the cache saves. Per stage pair it reports the median and
95th percentile of check time, the verdict counts and the largest peak
memory; per kernel, the ratio of audit time to the time Triton takes to
compile the kernel: the cold compile time scripts/compile_times.py measured
on the GPU machine where a manifest has one, else the time recorded at
capture.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def cold_compile_times(dirs):
    """(bundle name, kernel) -> cold_compile_time_s from the manifests."""
    out = {}
    for d in dirs:
        for root, _, files in os.walk(d):
            if "manifest.json" not in files:
                continue
            try:
                m = json.load(open(os.path.join(root, "manifest.json")))
            except (OSError, ValueError):
                continue
            for step in m.get("steps", []):
                if step.get("kind") == "launch" and step.get("cold_compile_time_s"):
                    out[(m.get("name"), step["kernel"])] = step["cold_compile_time_s"]
    return out


def run_corpus(stagecheck, dirs, jobs, cache, report, libdevice):
    start = time.monotonic()
    extra = ["--libdevice", libdevice] if libdevice else []
    subprocess.run([stagecheck, "corpus", "--jobs", str(jobs), "--cache", cache,
                    "--json", report] + extra + dirs,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    return json.load(open(report)), wall


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stagecheck", default=os.path.join(ROOT, "build/tools/stagecheck"))
    ap.add_argument("--jobs", type=int, default=1,
                    help="parallel audits (1 measures each pair without contention)")
    ap.add_argument("--pairs", default="", help="only these pairs in the tables")
    ap.add_argument("--json", help="also keep the first run's corpus report here")
    ap.add_argument("--libdevice", default=os.path.join(
        ROOT, "tests/stages/ttgir_to_llir/libdevice/triton-3.6.0-libdevice.10.bc"),
        help="the libdevice the kernels were linked with (default: Triton 3.6's, "
             "which the corpus was compiled with)")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    wanted = set(p for p in args.pairs.split(",") if p)

    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        libdevice = args.libdevice if os.path.exists(args.libdevice) else ""
        first, first_wall = run_corpus(args.stagecheck, args.dirs, args.jobs, cache,
                                       os.path.join(tmp, "first.json"), libdevice)
        second, second_wall = run_corpus(args.stagecheck, args.dirs, args.jobs, cache,
                                         os.path.join(tmp, "second.json"), libdevice)
        if args.json:
            json.dump(first, open(args.json, "w"), indent=1)

    results = [r for r in first["results"] if not wanted or r["pair"] in wanted]
    pairs = ["fx->ttir", "ttir->ttgir", "ttgir->llir", "llir->ptx"]
    print(f"Machine: {machine()}. Command: `scripts/bench.py --jobs {args.jobs} "
          f"{' '.join(args.dirs)}`; {len(first['bundles'])} bundles.\n")
    print("| pair | checked | median | p95 | max | proved | within tol. | counterexample | unknown | peak memory |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    peak = {}
    for b in first["bundles"]:
        peak[b["bundle"]] = b.get("peak_memory_mb", 0)
    for pair in pairs:
        rows = [r for r in results if r["pair"] == pair]
        decided = [r for r in rows if not r["reason"].startswith("no checker")]
        if not rows:
            continue
        times = [r["seconds"] for r in decided]
        counts = {v: sum(1 for r in decided if r["verdict"] == v)
                  for v in ("proved", "proved within tolerance", "counterexample", "unknown")}
        mem = max((peak.get(r["bundle"], 0) for r in decided), default=0)
        if not decided:
            print(f"| {pair} | 0 of {len(rows)} (no checker) | | | | | | | | |")
            continue
        print(f"| {pair} | {len(decided)} | {statistics.median(times):.3f} s | "
              f"{percentile(times, 95):.3f} s | {max(times):.3f} s | {counts['proved']} | "
              f"{counts['proved within tolerance']} | {counts['counterexample']} | "
              f"{counts['unknown']} | {mem:.0f} MB |")

    print(f"\nWhole corpus: first run {first_wall:.1f} s, second run over the unchanged "
          f"corpus {second_wall:.1f} s (verdict cache), "
          f"{first_wall / max(second_wall, 1e-9):.1f}x faster.\n")

    # Audit time / Triton compile time, per kernel.
    per_kernel = {}
    compile_time = {}
    for r in first["results"]:
        if r["kernel"] is None:
            continue
        key = (r["bundle"], r["kernel"])
        per_kernel[key] = per_kernel.get(key, 0) + r["seconds"]
        compile_time[key] = r.get("compile_time_s")
    # The whole-program pair is charged to the bundle's kernels evenly.
    for r in first["results"]:
        if r["kernel"] is None:
            keys = [k for k in per_kernel if k[0] == r["bundle"]]
            for k in keys:
                per_kernel[k] += r["seconds"] / len(keys)
    # The cold compile time (scripts/compile_times.py, TTIR to cubin in an
    # empty cache) where a manifest has one, else the time recorded at
    # capture (for inductor's kernels mostly a cache hit).
    cold = cold_compile_times(args.dirs)
    print("| bundle | kernel | audit | Triton compile (cold, from TTIR) | ratio | recorded at capture |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for (bundle, kernel), seconds in sorted(per_kernel.items()):
        recorded = compile_time.get((bundle, kernel))
        c = cold.get((bundle, kernel)) or recorded
        ratio = seconds / c if c else None
        if ratio is not None:
            ratios.append(ratio)
        print(f"| {bundle} | {kernel} | {seconds:.2f} s | "
              f"{'%.3f s' % c if c else 'not recorded'} | "
              f"{'%.1f' % ratio if ratio is not None else '-'} | "
              f"{'%.3f s' % recorded if recorded else '-'} |")
    if ratios:
        within = sum(1 for x in ratios if x <= 1)
        print(f"\nAudit time within Triton's compile time (ratio <= 1): {within} of "
              f"{len(ratios)} kernels ({100 * within / len(ratios):.0f}%).")


if __name__ == "__main__":
    sys.exit(main())
