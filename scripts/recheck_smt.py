#!/usr/bin/env python3
"""Re-checks the queries `stagecheck --dump-smt DIR` wrote with another solver.

usage: scripts/recheck_smt.py [--solver cvc5] [--timeout-s 60] DIR...

Each dumped query carries the answer Z3 gave as its SMT-LIB :status (unsat:
proved, sat: a model was found, unknown: no answer). The second solver is
asked every query; a query it answers the other way is a disagreement, which
means one of the two solvers (or the encoding) is wrong about it. Prints one
line per disagreement and a summary; exits 1 if the solvers disagree on any
query, 2 if the second solver could not be run, else 0.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

STATUS = re.compile(r"^\(set-info :status (sat|unsat|unknown)\)", re.M)


def answer_of(solver, script, timeout_s):
    """The second solver's first line of output: sat, unsat, or why not. The
    script goes in without its status (cvc5 stops at an answer that
    contradicts it, rather than saying the answer)."""
    script = STATUS.sub("(set-info :status unknown)", script)
    try:
        r = subprocess.run([solver, "--lang", "smt2"], input=script, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return "timeout"
    first = r.stdout.strip().split("\n")[0] if r.stdout.strip() else f"exit {r.returncode}"
    return first if first in ("sat", "unsat", "unknown") else "error: " + first[:200]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", default="cvc5")
    ap.add_argument("--timeout-s", type=float, default=60)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    if not shutil.which(args.solver):
        print(f"recheck_smt: {args.solver} is not installed", file=sys.stderr)
        return 2
    missing = [d for d in args.dirs if not os.path.isdir(d)]
    if missing:
        print(f"recheck_smt: no directory {missing[0]}", file=sys.stderr)
        return 2
    files = sorted(os.path.join(d, f) for d in args.dirs for f in os.listdir(d)
                   if f.endswith(".smt2"))
    if not files:
        print(f"recheck_smt: no .smt2 files under {' '.join(args.dirs)}", file=sys.stderr)
        return 2
    tally = collections.Counter()
    for path in files:
        with open(path) as f:
            script = f.read()
        if "(check-sat)" not in script:
            # A query no SMT-LIB could say (the file tells why): nothing to ask.
            tally["not written"] += 1
            continue
        m = STATUS.search(script)
        z3 = m.group(1) if m else "unknown"
        other = answer_of(args.solver, script, args.timeout_s)
        if z3 == "unknown" or other not in ("sat", "unsat"):
            tally["undecided"] += 1
            if other.startswith("error"):
                tally["errors"] += 1
                print(f"error     {path}: {other}")
        elif z3 == other:
            tally["agree " + z3] += 1
        else:
            tally["disagree"] += 1
            print(f"disagree  {path}: z3 {z3}, {args.solver} {other}")
    print(f"{len(files)} queries: {tally['agree unsat']} unsat and {tally['agree sat']} sat "
          f"in both, {tally['disagree']} disagreeing, {tally['undecided']} undecided by one "
          f"of the two ({tally['errors']} {args.solver} errors), {tally['not written']} "
          f"not written")
    return 1 if tally["disagree"] or tally["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
