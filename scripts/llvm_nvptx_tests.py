#!/usr/bin/env python3
"""LLVM's own NVPTX codegen tests as a second source of LLVM IR <-> PTX pairs.

Given a directory of LLVM NVPTX .ll test files (llvm/test/CodeGen/NVPTX in
llvm-project; they are not part of this repository), each file is compiled
with `llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90` and the options of
its RUN line that can be honoured, and `stagecheck check --from llir F.ll
--to ptx F.ptx` gives one verdict per function. Prints a table: file,
functions, proved / counterexample / unknown / error, and the most common
reasons for unknown; files that are skipped are listed with the reason.

A file is skipped when llc rejects it, or when no RUN line can be honoured:
a RUN line that compiles for another target, needs a newer GPU than sm_90,
rewrites the file first (sed, opt) or changes what the IR means with an
option the checker does not model (-denormal-fp-math, unsafe fp math,
approximate division or sqrt).

usage: llvm_nvptx_tests.py [--stagecheck PATH] [--llc PATH] [--out DIR]
                           [--timeout S] [--details] DIR_OR_FILE...
"""
import argparse
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Options that change the IR's meaning in ways the LLVM IR does not state
# (the checker would compare the PTX against the wrong semantics).
MEANING_FLAGS = ("-denormal-fp-math", "--denormal-fp-math",
                 "-enable-unsafe-fp-math", "--enable-unsafe-fp-math",
                 "-nvptx-prec-divf32", "--nvptx-prec-divf32",
                 "-nvptx-prec-sqrtf32", "--nvptx-prec-sqrtf32",
                 "-nvptx-approx-log2f32", "--nvptx-approx-log2f32",
                 "-nvptx-f32ftz", "--nvptx-f32ftz",
                 "-fast-math", "--fast-math")
# Options passed on to llc as they are.
KEPT_PREFIXES = ("-fp-contract=", "--fp-contract=", "-O", "-mattr=",
                 "--mattr=", "-verify-machineinstrs")


def run_lines(path):
    """The file's RUN commands, continuation lines joined."""
    lines, current = [], ""
    with open(path, errors="replace") as f:
        for raw in f:
            m = re.match(r"\s*;\s*RUN:\s?(.*)$", raw)
            if not m:
                if current:
                    lines.append(current)
                    current = ""
                continue
            part = m.group(1).rstrip()
            if part.endswith("\\"):
                current += part[:-1] + " "
            else:
                lines.append(current + part)
                current = ""
    if current:
        lines.append(current)
    return lines


def sm_number(cpu):
    m = re.match(r"sm_(\d+)", cpu)
    return int(m.group(1)) if m else 0


def llc_options(path):
    """(options, None) for the first RUN line that can be honoured, else
    (None, why the file is skipped)."""
    why = "no RUN line runs llc"
    candidates = []
    for line in run_lines(path):
        if "%if" in line:  # ptxas verification lines
            continue
        first = line.split("|")[0]
        try:
            words = shlex.split(first)
        except ValueError:
            continue
        if not words or os.path.basename(words[0]) != "llc":
            if "llc" in line and ("sed" in words[:1] or "opt" in words[:1]):
                why = "RUN line rewrites the file (%s) before llc" % words[0]
            continue
        candidates.append(words)
    # nvptx64 lines first.
    candidates.sort(key=lambda w: 0 if any("nvptx64" in x for x in w) else 1)
    for words in candidates:
        opts, reason = [], None
        triple = ""
        cpu = ""
        k = 1
        while k < len(words):
            w = words[k]
            if w in ("-mtriple", "-march", "-mcpu", "-o") and k + 1 < len(words):
                w = w + "=" + words[k + 1]
                k += 1
            k += 1
            if w.startswith(("-mtriple=", "--mtriple=", "-march=", "--march=")):
                triple = w.split("=", 1)[1]
            elif w.startswith(("-mcpu=", "--mcpu=")):
                cpu = w.split("=", 1)[1]
            elif w.startswith(MEANING_FLAGS):
                reason = "option %s changes what the IR means" % w
            elif w.startswith(KEPT_PREFIXES):
                opts.append(w)
            elif w in ("<", "%s", "-"):
                continue
            elif w.startswith("-"):
                reason = "option %s is not honoured" % w
        if triple and not triple.startswith("nvptx64"):
            reason = reason or "needs triple %s" % triple
        if sm_number(cpu) > 90:
            reason = reason or "needs %s (newer than sm_90)" % cpu
        if reason:
            why = reason
            continue
        return opts, None
    return None, why


VERDICT = re.compile(r"^(?:function|kernel) (\S+): (proved|counterexample|"
                     r"unknown|error)(?:[^:]*)(?:: (.*))?$")
SINGLE = re.compile(r"^verdict: (proved|counterexample|unknown|error)"
                    r"(?:[^:]*)(?:: (.*?))?\s+\(exit \d+\)$")


def normalise(reason):
    """A reason without file locations, so that alike reasons count as one."""
    reason = re.sub(r"(?:\s+at)?\s*\S+\.(?:ll|ptx)(?::\d+)*:?\s*", " ", reason or "").strip()
    reason = re.sub(r"call @(?!llvm\.)[\w.$]+", "call of a function", reason)
    reason = re.sub(r"\s+\(exit \d+\)$", "", reason)
    return reason or "(no reason given)"


def check_file(args, path, out_dir):
    name = os.path.basename(path)
    opts, why = llc_options(path)
    if opts is None:
        return {"file": name, "skipped": why}
    base = os.path.join(out_dir, name[:-3])
    ptx = base + ".ptx"
    cmd = [args.llc, "-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90"] + opts + [
        path, "-o", ptx]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        err = (p.stderr.strip().splitlines() or ["?"])[0]
        return {"file": name, "skipped": "llc rejects it: " + normalise(err)[:100]}
    meta = base + ".json"
    fusion = any(o.split("=", 1)[1] == "fast" for o in opts
                 if "fp-contract=" in o)
    with open(meta, "w") as f:
        json.dump({"enable_fp_fusion": fusion}, f)
    try:
        p = subprocess.run([args.stagecheck, "check", "--from", "llir", path,
                            "--to", "ptx", ptx, "--meta", meta],
                           capture_output=True, text=True, timeout=args.timeout)
        out = p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return {"file": name, "options": opts, "functions": [],
                "timeout": True}
    with open(base + ".out", "w") as f:
        f.write(out)
    functions = []
    for line in out.splitlines():
        m = VERDICT.match(line)
        if m:
            functions.append((m.group(1), m.group(2), m.group(3) or ""))
    if not functions:
        for line in out.splitlines():
            m = SINGLE.match(line)
            if m:
                functions.append(("(kernel)", m.group(1), m.group(2) or ""))
    if not functions:
        functions.append(("(file)", "error",
                          (out.strip().splitlines() or ["no output"])[-1]))
    return {"file": name, "options": opts, "functions": functions,
            "output": base + ".out"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--stagecheck",
                    default=os.path.join(here, "..", "build", "tools",
                                         "stagecheck"))
    ap.add_argument("--llc", default="llc-22")
    ap.add_argument("--out", help="where the PTX and outputs go "
                    "(default: a temporary directory)")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds per file (default 600)")
    ap.add_argument("--details", action="store_true",
                    help="list every function that is not proved")
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()
    files = []
    for i in args.inputs:
        if os.path.isdir(i):
            files += sorted(os.path.join(i, f) for f in os.listdir(i)
                            if f.endswith(".ll"))
        else:
            files.append(i)
    out_dir = args.out or tempfile.mkdtemp(prefix="llvm-nvptx-")
    os.makedirs(out_dir, exist_ok=True)
    results = []
    for path in files:
        r = check_file(args, path, out_dir)
        results.append(r)
        print("…", r["file"], file=sys.stderr, flush=True)

    kinds = ("proved", "counterexample", "unknown", "error")
    totals = collections.Counter()
    reasons = collections.Counter()
    print("| file | functions | proved | counterexample | unknown | error | "
          "top unknown reason |")
    print("|---|---:|---:|---:|---:|---:|---|")
    skipped = []
    for r in results:
        if "skipped" in r:
            skipped.append(r)
            continue
        if r.get("timeout"):
            print("| %s | ? | | | | | timed out after %d s |" %
                  (r["file"], args.timeout))
            totals["timeout"] += 1
            continue
        c = collections.Counter(v for _, v, _ in r["functions"])
        own = collections.Counter(normalise(why) for _, v, why in
                                  r["functions"] if v == "unknown")
        reasons.update(own)
        for k in kinds:
            totals[k] += c[k]
        totals["functions"] += len(r["functions"])
        totals["files"] += 1
        top = own.most_common(1)[0][0] if own else ""
        print("| %s | %d | %s | %s |" % (r["file"], len(r["functions"]),
                                        " | ".join(str(c[k]) for k in kinds),
                                        top.replace("|", "\\|")[:90]))
    print("| **total (%d files)** | %d | %s | |" % (
        totals["files"], totals["functions"],
        " | ".join(str(totals[k]) for k in kinds)))
    if reasons:
        print("\nunknown, by reason:")
        for why, n in reasons.most_common(15):
            print("  %4d  %s" % (n, why))
    if skipped:
        print("\nskipped:")
        for r in skipped:
            print("  %s: %s" % (r["file"], r["skipped"]))
    if args.details:
        print("\nnot proved:")
        for r in results:
            for fn, v, why in r.get("functions", []):
                if v != "proved":
                    print("  %s %s: %s %s" % (r["file"], fn, v, why))
    print("\noutputs in", out_dir)
    return 1 if totals["counterexample"] else 0


if __name__ == "__main__":
    sys.exit(main())
