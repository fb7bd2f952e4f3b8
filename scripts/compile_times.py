#!/usr/bin/env python3
"""Measures how long Triton takes to compile each kernel of a bundle, cold.

usage: scripts/compile_times.py [--repeat N] [--write] [--json FILE] BUNDLE_DIR...
       scripts/compile_times.py --apply FILE BUNDLE_DIR...   (no GPU needed)

Run on the GPU machine (triton 3.6, CUDA). The compile time a bundle records
at capture is whatever the capturing process spent in triton.compile; for
inductor's kernels that is mostly a cache hit, since inductor compiles in
worker processes. This script compiles every launched kernel again from its
TTIR with the bundle's options (num_warps, num_stages, fp fusion, ...), each
time into an empty Triton cache, in a process that has already compiled once
(so library loading is not counted), and takes the median of N runs. The
result is Triton's compile time from TTIR to cubin: the Python frontend
(source to TTIR) is not included, so it is a lower bound of the real compile
time.

--write adds "cold_compile_time_s" (and "cold_compile_from": "ttir") to each
launch step of the manifests; scripts/bench.py uses it when present.
--apply writes the times of an earlier --json FILE into the manifests.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# Runs in a child process: argv = ttir path, options json, repeat.
CHILD = r"""
import json, os, sys, tempfile, time
ttir, options, repeat = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
import triton
from triton.backends.compiler import GPUTarget
target = GPUTarget("cuda", options.pop("arch"), 32)

def compile_once():
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            triton.knobs.cache.dir = cache
        except Exception:
            pass
        start = time.perf_counter()
        triton.compile(ttir, target=target, options=dict(options))
        return time.perf_counter() - start

compile_once()  # process-level start-up (LLVM, ptxas lookup) not counted
print(json.dumps([compile_once() for _ in range(repeat)]))
"""

OPTION_KEYS = ("num_warps", "num_ctas", "num_stages", "enable_fp_fusion",
               "debug", "sanitize_overflow", "maxnreg", "launch_pdl")


def options_of(metadata):
    opts = {k: metadata[k] for k in OPTION_KEYS
            if k in metadata and metadata[k] is not None}
    opts["arch"] = int(metadata.get("target", {}).get("arch", 90))
    return opts


def measure(bundle, step, repeat):
    files = step.get("files", {})
    if "ttir" not in files or "metadata" not in files:
        return None, "no ttir or metadata"
    with open(os.path.join(bundle, files["metadata"])) as f:
        metadata = json.load(f)
    with tempfile.TemporaryDirectory() as work:
        # IRSource names the kernel after the file; copy it under its name.
        ttir = os.path.join(work, os.path.basename(files["ttir"]))
        with open(os.path.join(bundle, files["ttir"])) as src, open(ttir, "w") as dst:
            dst.write(src.read())
        p = subprocess.run([sys.executable, "-c", CHILD, ttir,
                            json.dumps(options_of(metadata)), str(repeat)],
                           capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["failed"])[-1]
    return statistics.median(json.loads(p.stdout.strip().splitlines()[-1])), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundles", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--apply")
    args = ap.parse_args()
    measured = None
    if args.apply:
        with open(args.apply) as f:
            measured = json.load(f)
        args.write = True
    results = {}
    failures = 0
    for bundle in args.bundles:
        path = os.path.join(bundle, "manifest.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            manifest = json.load(f)
        name = manifest.get("name", os.path.basename(bundle.rstrip("/")))
        changed = False
        for step in manifest.get("steps", []):
            if step.get("kind") != "launch":
                continue
            key = f"{name}/{step['kernel']}"
            if measured is not None:
                entry = measured.get(key, {})
                seconds = entry.get("cold_compile_time_s")
                error = entry.get("error", None if seconds else "not in " + args.apply)
            else:
                seconds, error = measure(bundle, step, args.repeat)
            if error:
                failures += 1
                print(f"{key}: not measured: {error}", flush=True)
                results[key] = {"error": error}
                continue
            print(f"{key}: {seconds:.3f} s (recorded at capture: "
                  f"{step.get('compile_time_s', 0):.3f} s)", flush=True)
            results[key] = {"cold_compile_time_s": seconds,
                            "capture_compile_time_s": step.get("compile_time_s")}
            step["cold_compile_time_s"] = round(seconds, 4)
            step["cold_compile_from"] = "ttir"
            changed = True
        if args.write and changed:
            with open(path, "w") as f:
                json.dump(manifest, f, indent=2)
                f.write("\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
