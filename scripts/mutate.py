#!/usr/bin/env python3
"""The mutation harness: how much of what goes wrong does stagecheck catch?

usage: scripts/mutate.py [--stagecheck PATH] [--per-operator N] [--seed S]
                         [--stages ttir,ttgir,llir,ptx] [--operators NAME,...]
                         [--jobs N] [--json OUT] [--recheck EARLIER.json]
                         CORPUS_DIR...

--operators keeps only the named operators; with a large --per-operator it
mutates every site of them, which measures one operator's score over the
whole corpus rather than over a sample.

--recheck judges again, with this build, the mutants of an earlier run's
JSON that were not caught (the others keep their outcome), and prints the
table of the whole set: what a checker change gained, without re-running
what it cannot lose.

For every bundle, every stage file is mutated by operators that model the
bugs a compiler stage can introduce (a flipped predicate, a changed
constant, swapped operands, a dropped mask or guard, a wrong shuffle offset,
a wrong rounding, swapped vector lanes, a warp reduction's operation, ...). Each mutant records the pair
that must fail: the pair that ends at the mutated stage (a TTGIR mutant
must fail at TTIR -> TTGIR, with FX -> TTIR still proved).

A mutant that changes nothing observable is recognised by a proof: a mutant
the audit does not catch is checked against the original stage file
(`stagecheck check --from S --to S`); if they are proved equivalent the
mutant is set aside, not counted as a miss. (The audit knows the bundle's
tensor sizes, the file check does not: a dropped load mask is caught by the
audit as a read outside the tensor, before equivalence is asked.) Outcomes:

  caught       the mutated pair (proved on the original) gives a counterexample
               and every earlier pair keeps the original's verdict
  mislocated   a counterexample, but an earlier pair changed too
  inconclusive the mutated pair is `unknown`
  missed       every pair proved, and the mutant is not equivalent (the
               equivalence check shows an input where the two differ)
  unsettled    every pair proved, and whether the mutant is equivalent is
               undecided (counted as not caught)
  equivalent   proved equivalent to the original: set aside
  bounded-equivalent  proved equivalent for loops up to the check's bound
               only (it may differ beyond): set aside, listed apart
  launch-equivalent  a TTIR mutant FX <-> TTIR proves for the bundle's launch
               (grid, sizes, scalars) that differs from the original only
               for other launches; or a later stage's mutant every pair
               proves that `stagecheck check --launch BUNDLE` proves equal
               to the original at the bundle's launch (those pairs check
               reads against the tensors' sizes only there): set aside
  invalid      the mutant is not well-formed input (exit 3): set aside
"""
import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIR_ENDING_AT = {"ttir": "fx->ttir", "ttgir": "ttir->ttgir", "llir": "ttgir->llir",
                  "ptx": "llir->ptx"}


class Operator:
    """A regex rewrite applied at one chosen match of one line."""

    def __init__(self, name, pattern, rewrite, where=None):
        self.name = name
        self.pattern = re.compile(pattern)
        self.rewrite = rewrite  # function(match) -> replacement text, or None
        self.where = where      # optional predicate on (lines, index)

    def sites(self, lines):
        out = []
        for i, line in enumerate(lines):
            if self.where and not self.where(lines, i):
                continue
            for m in self.pattern.finditer(line):
                if self.rewrite(m) not in (None, m.group(0)):
                    out.append((i, m.start(), m.end()))
        return out

    def apply(self, lines, site):
        i, start, end = site
        m = self.pattern.match(lines[i], start)
        new = list(lines)
        new[i] = lines[i][:start] + self.rewrite(m) + lines[i][end:]
        return new


def flip(table):
    return lambda m: m.group(0).replace(m.group(1), table[m.group(1)], 1)


def bump_number(m):
    text = m.group(1)
    if re.fullmatch(r"-?\d+", text):
        bumped = str(int(text) + 1)
    else:
        try:
            value = float(text)
        except ValueError:
            return None
        bumped = repr(value * 2 if value else 1.0)
    # At the number's own place: "add.s64 %rd6, %rd5, 4" keeps its .s64.
    start, end = m.start(1) - m.start(0), m.end(1) - m.start(0)
    return m.group(0)[:start] + bumped + m.group(0)[end:]


def swap_operands(m):
    return f"{m.group(1)} {m.group(3)}, {m.group(2)}"


def in_reduce_region(lines, i):
    """Whether line i lies inside a tt.reduce's combine region: a reduce
    opens above it and no region closes (`}) : ...`) between them."""
    for j in range(i, -1, -1):
        if '"tt.reduce"' in lines[j] or "tt.reduce(" in lines[j]:
            return True
        if j != i and lines[j].lstrip().startswith("})"):
            return False
        if lines[j].startswith("  tt.func") or lines[j].startswith("tt.func"):
            return False
    return False


CMPI = {"slt": "sle", "sle": "slt", "sgt": "sge", "sge": "sgt", "ult": "ule",
        "ule": "ult", "ugt": "uge", "uge": "ugt", "eq": "ne", "ne": "eq"}
CMPF = {"olt": "ole", "ole": "olt", "ogt": "oge", "oge": "ogt", "oeq": "one",
        "one": "oeq", "ult": "ule", "ule": "ult", "ugt": "uge", "uge": "ugt",
        "une": "ueq", "ueq": "une", "uno": "ord", "ord": "uno"}
SETP = {"lt": "le", "le": "lt", "gt": "ge", "ge": "gt", "eq": "ne", "ne": "eq",
        "ltu": "leu", "leu": "ltu", "gtu": "geu", "geu": "gtu"}
# A warp reduction's operation: or/and, min/max (add and xor to each other).
REDUX = {"or": "and", "and": "or", "xor": "add", "add": "xor", "min": "max", "max": "min",
         "umin": "umax", "umax": "umin"}

TRITON_OPERATORS = [
    Operator("constant", r"arith\.constant (?:dense<)?(-?[0-9][0-9.e+-]*)>? :", bump_number),
    Operator("cmpi-predicate", r"arith\.cmpi (slt|sle|sgt|sge|ult|ule|ugt|uge|eq|ne),", flip(CMPI)),
    Operator("cmpf-predicate", r"arith\.cmpf (olt|ole|ogt|oge|oeq|one|ult|ule|ugt|uge|une|ueq|uno|ord),", flip(CMPF)),
    Operator("swap-operands", r"(arith\.(?:subf|divf|subi|divsi|remsi)) (%[\w#]+), (%[\w#]+)", swap_operands),
    Operator("drop-load-mask", r"(tt\.load %[\w#]+), %[\w#]+(?:, %[\w#]+)?", lambda m: m.group(1)),
    Operator("drop-store-mask", r"(tt\.store %[\w#]+, %[\w#]+), %[\w#]+", lambda m: m.group(1)),
    Operator("reduce-combiner", r"arith\.(addf|maxnumf|minnumf|maximumf|minimumf|mulf|ori|andi)",
             flip({"addf": "mulf", "mulf": "addf", "maxnumf": "minnumf", "minnumf": "maxnumf",
                   "maximumf": "minimumf", "minimumf": "maximumf", "ori": "andi", "andi": "ori"}),
             where=in_reduce_region),
    Operator("ext-signedness", r"arith\.(extui|extsi) ", flip({"extui": "extsi", "extsi": "extui"})),
    Operator("make-range-off-by-one", r"tt\.make_range \{end = (\d+) : i32, start = (\d+) : i32\}",
             lambda m: f"tt.make_range {{end = {int(m.group(1)) + 1} : i32, start = {int(m.group(2)) + 1} : i32}}"),
]

LLIR_OPERATORS = [
    Operator("icmp-predicate", r"icmp (slt|sle|sgt|sge|ult|ule|ugt|uge|eq|ne) ", flip(CMPI)),
    Operator("fcmp-predicate", r"fcmp (?:\w+ )*(olt|ole|ogt|oge|oeq|one|ult|ule|ugt|uge|une|ueq|uno|ord) ", flip(CMPF)),
    Operator("constant", r"(?:add|mul|and|or|shl|lshr) (?:nuw |nsw )*i32 %\w+, (-?\d+)$", bump_number),
    # LLVM IR value names may hold dots (%r.i.1.i46, from inlining).
    Operator("swap-operands", r"((?:fsub|fdiv|sub|sdiv)(?: \w+)*? (?:float|double|half|i32|i64)) (%[\w.$-]+), (%[\w.$-]+)", swap_operands),
    Operator("shuffle-offset", r"shfl\.sync\.\w+\.(?:f32|i32)\(i32 -1, \w+ %\w+, i32 (\d+),",
             lambda m: m.group(0).replace(f"i32 {m.group(1)},", f"i32 {max(1, int(m.group(1)) // 2)},", 1)
             if int(m.group(1)) > 1 else None),
    Operator("drop-barrier", r"^\s*(?:tail )?call void @llvm\.nvvm\.barrier[\w.]*\([^)]*\)(, !dbg !\d+)?$",
             lambda m: ""),
    Operator("redux-op", r"call i32 @llvm\.nvvm\.redux\.sync\.(or|and|xor|add|min|max|umin|umax)\(",
             flip(REDUX)),
    Operator("store-lane-swap", r"st\.global\.v4\.b32 \[ \$\d+ \+ \d+ \], \{ (\$\d+), (\$\d+),",
             lambda m: m.group(0).replace(f"{{ {m.group(1)}, {m.group(2)},", f"{{ {m.group(2)}, {m.group(1)},", 1)),
]

PTX_OPERATORS = [
    Operator("setp-predicate", r"setp\.(lt|le|gt|ge|eq|ne|ltu|leu|gtu|geu)\.", flip(SETP)),
    Operator("immediate", r"(?:add|mul|and|or|shl|shr)\.\w+\s+%\w+, %\w+, (-?\d+);", bump_number),
    Operator("drop-guard", r"^(\s*)@%p\d+ (st\.)", lambda m: m.group(1) + m.group(2)),
    Operator("drop-barrier", r"^\s*bar\.sync \d+;", lambda m: ""),
    Operator("add-to-sub", r"\badd\.(f32|s32|u32|s64|u64)\b", lambda m: "sub." + m.group(1)),
    Operator("shuffle-offset", r"shfl\.sync\.\w+\.b32\s+%r\d+, %r\d+, (\d+), ",
             lambda m: m.group(0).replace(f", {m.group(1)}, ", f", {max(1, int(m.group(1)) // 2)}, ", 1)
             if int(m.group(1)) > 1 else None),
    Operator("redux-op", r"redux\.sync\.(or|and|xor|add|min|max)\.", flip(REDUX)),
    Operator("cvt-rounding", r"cvt\.(rn|rz|rm|rp)\.",
             flip({"rn": "rz", "rz": "rn", "rm": "rp", "rp": "rm"})),
    Operator("v4-lane-swap", r"\.v4\.\w+\s+\[[^\]]+\], \{(%\w+), (%\w+),",
             lambda m: m.group(0).replace(f"{{{m.group(1)}, {m.group(2)},", f"{{{m.group(2)}, {m.group(1)},", 1)),
]

OPERATORS = {"ttir": TRITON_OPERATORS, "ttgir": TRITON_OPERATORS,
             "llir": LLIR_OPERATORS, "ptx": PTX_OPERATORS}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def bundles_under(dirs):
    found = []
    for d in dirs:
        for root, _, files in os.walk(d, followlinks=True):
            if "manifest.json" in files and os.path.basename(root) != "captured":
                found.append(root)
    return sorted(found)


# An equivalence proof that takes longer than this is not had (the check
# stops itself at its --pair-time-limit-s).
EQUIVALENCE_LIMIT_S = 300

# Outcomes not counted in the score: the mutant is not a bug the pair could
# show (it means what the original means), or not input at all.
SET_ASIDE = ("equivalent", "bounded-equivalent", "launch-equivalent", "invalid")

# Outcomes the score counts: caught, or not caught for one reason or another.
COUNTED = ("caught", "mislocated", "inconclusive", "unsettled", "missed")

PIPELINE = ["fx->ttir", "ttir->ttgir", "ttgir->llir", "llir->ptx"]
# The libdevice Triton 3.6 linked the corpus kernels with, when present.
_TRITON_LIBDEVICE = os.path.join(
    ROOT, "tests/stages/ttgir_to_llir/libdevice/triton-3.6.0-libdevice.10.bc")
LIBDEVICE = ["--libdevice", _TRITON_LIBDEVICE] if os.path.exists(_TRITON_LIBDEVICE) else []


def audit_verdicts(stagecheck, bundle, cache, report, pairs=None, reasons=None):
    """(kernel or None, pair) -> verdict of every pair the audit ran (all, or
    those in pairs), or None when the bundle is not valid input; each
    verdict's reason goes to `reasons` when given. The report is written to
    `report`, a scratch file, never into the corpus."""
    if reasons is None:
        reasons = {}
    stages = ["--stages", ",".join(pairs)] if pairs else []
    r = run([stagecheck, "audit", "--cache", cache, "--json", report] + stages + LIBDEVICE
            + [bundle])
    if r.returncode == 3:
        return None, r.stdout.strip().splitlines()[-1:]
    rep = json.load(open(report))
    verdicts = {}
    for p in rep["program"]:
        verdicts[(None, p["pair"])] = p["result"]["verdict"]
        reasons[(None, p["pair"])] = p["result"].get("reason", "")
    for k in rep["kernels"]:
        for p in k["pairs"]:
            verdicts[(k["kernel"], p["pair"])] = p["result"]["verdict"]
            reasons[(k["kernel"], p["pair"])] = p["result"].get("reason", "")
    return verdicts, []


def classify(stagecheck, bundle, stage, kernel, cache, report, original):
    """Compares the mutant's audit with the original bundle's: the mutant is
    caught when the pair ending at the mutated stage turns from proved into a
    counterexample while every earlier pair keeps its verdict. Later pairs
    read the mutated file too but say nothing of where the change entered,
    so they are not run."""
    want = PAIR_ENDING_AT[stage]
    earlier = PIPELINE[:PIPELINE.index(want)]
    reasons = {}
    verdicts, notes = audit_verdicts(stagecheck, bundle, cache, report, earlier + [want],
                                     reasons)
    if verdicts is None:
        return "invalid", notes
    key = (None if want == "fx->ttir" else kernel, want)
    mutated = verdicts.get(key)
    moved = [k for k in verdicts if k[1] in earlier and verdicts[k] != original.get(k)]
    if mutated == "counterexample":
        if not moved:
            return "caught", []
        return "mislocated", [f"also changed: {k[1]} {verdicts[k]}" for k in moved]
    if mutated in ("unknown", None):
        # Why, for triage: a timeout, an unsupported operation, a limit.
        return "inconclusive", [f"{want}: {reasons.get(key) or 'not checked'}"]
    return "missed", []


def mutants_of(bundle, baseline, stages, per_operator, rng, operators=None):
    """Every mutant of one bundle: (record, relative path, mutated lines)."""
    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    launches = [s for s in manifest["steps"] if s["kind"] == "launch"]
    for launch in launches:
        for stage in stages:
            rel = launch["files"][stage]
            # Only a pair the original proves can show a mutant.
            pair = PAIR_ENDING_AT[stage]
            before = baseline.get((None if pair == "fx->ttir" else launch["kernel"], pair))
            if before != "proved":
                print(f"skipped      {os.path.basename(bundle)} {stage}: the original "
                      f"gives {before} at {pair}", flush=True)
                continue
            original = open(os.path.join(bundle, rel)).read().split("\n")
            for op in OPERATORS[stage]:
                if operators and op.name not in operators:
                    continue
                sites = op.sites(original)
                rng.shuffle(sites)
                for site in sites[:per_operator]:
                    mutated = op.apply(original, site)
                    record = {"bundle": os.path.basename(bundle), "kernel": launch["kernel"],
                              "stage": stage, "operator": op.name, "line": site[0] + 1,
                              "before": original[site[0]].strip(),
                              "after": mutated[site[0]].strip()}
                    yield record, rel, mutated


def recorded_mutant(dirs, record):
    """The bundle, relative path and mutated lines of an earlier record."""
    for bundle in bundles_under(dirs):
        if os.path.basename(bundle) != record["bundle"]:
            continue
        manifest = json.load(open(os.path.join(bundle, "manifest.json")))
        for launch in manifest["steps"]:
            if launch["kind"] == "launch" and launch["kernel"] == record["kernel"]:
                rel = launch["files"][record["stage"]]
                lines = open(os.path.join(bundle, rel)).read().split("\n")
                i = record["line"] - 1
                if lines[i].strip() != record["before"]:
                    return None
                indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
                lines[i] = indent + record["after"]
                return bundle, rel, lines
    return None


def judge(args, bundle, baseline, record, rel, mutated, cache, scratch):
    """Audits one mutant in its own scratch directory and sets its outcome."""
    mutant_dir = os.path.join(scratch, "mutant")
    shutil.rmtree(mutant_dir, ignore_errors=True)
    shutil.copytree(bundle, mutant_dir)
    with open(os.path.join(mutant_dir, rel), "w") as f:
        f.write("\n".join(mutated))
    stage = record["stage"]
    started = time.monotonic()
    record["outcome"], record["notes"] = classify(
        args.stagecheck, mutant_dir, stage, record["kernel"], cache,
        os.path.join(scratch, "report.json"), baseline)
    # Not caught: is the mutant observably the original?
    if record["outcome"] in ("missed", "inconclusive"):
        same = run([args.stagecheck, "check", "--from", stage, "--to", stage,
                    "--pair-time-limit-s", str(EQUIVALENCE_LIMIT_S),
                    os.path.join(bundle, rel), os.path.join(mutant_dir, rel)])
        if same.returncode == 0:
            # Equal only up to a loop bound is not equal: set aside apart.
            bounded = re.search(r"^\s*bound: .*iterations", same.stdout, re.M)
            record["outcome"] = "bounded-equivalent" if bounded else "equivalent"
            record["notes"] = [l for l in same.stdout.splitlines()
                               if l.startswith("verdict:") or bounded and l.strip().startswith("bound:")]
        elif record["outcome"] == "missed" and stage != "ttir":
            # Every pair proved it, yet it is not shown equal everywhere: a
            # later pair proves values at every launch but reads within the
            # tensors only at the bundle's launch, where their sizes are
            # known. Equal to the original there, it is launch-equivalent.
            at_launch = run([args.stagecheck, "check", "--from", stage, "--to", stage,
                             "--launch", bundle,
                             "--pair-time-limit-s", str(EQUIVALENCE_LIMIT_S),
                             os.path.join(bundle, rel), os.path.join(mutant_dir, rel)])
            if at_launch.returncode == 0:
                record["outcome"] = "launch-equivalent"
                record["notes"] = [l for l in at_launch.stdout.splitlines()
                                   if l.startswith("verdict:")]
            elif same.returncode == 2:
                record["outcome"] = "unsettled"
                record["notes"] = [l for l in same.stdout.splitlines()
                                   if l.startswith("verdict:")]
        elif record["outcome"] == "missed" and stage == "ttir":
            # FX <-> TTIR checks the bundle's launch (its grid, sizes and
            # scalars): the mutant still computes the reference there, and
            # differs from the original only for other launches.
            record["outcome"] = "launch-equivalent"
    record["seconds"] = round(time.monotonic() - started, 2)
    print(f"{record['outcome']:12} {record['bundle']} {stage} {record['operator']} "
          f"line {record['line']}  ({record['seconds']} s)", flush=True)
    return record


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stagecheck", default=os.path.join(ROOT, "build/tools/stagecheck"))
    ap.add_argument("--per-operator", type=int, default=2,
                    help="mutants per operator and stage file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stages", default="ttir,ttgir,llir,ptx")
    ap.add_argument("--operators", default="",
                    help="only these operators (comma-separated names), e.g. fcmp-predicate")
    ap.add_argument("--jobs", type=int, default=1, help="mutants audited at once")
    ap.add_argument("--json")
    ap.add_argument("--recheck", help="an earlier run's JSON: judge its uncaught mutants again")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    stages = [s for s in args.stages.split(",") if s]
    operators = {o for o in args.operators.split(",") if o}
    known = {op.name for stage in stages for op in OPERATORS[stage]}
    if operators - known:
        ap.error(f"no operator {', '.join(sorted(operators - known))} in stages {args.stages}")
    if not args.recheck and not bundles_under(args.dirs):
        ap.error(f"no bundle (a directory with a manifest.json) under {', '.join(args.dirs)}")
    rng = random.Random(args.seed)
    records = []
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        cache = os.path.join(tmp, "cache")
        # A copy, so that a rebuild during the run does not change (or
        # remove) the build under test halfway.
        binary = os.path.join(tmp, "stagecheck")
        shutil.copy2(args.stagecheck, binary)
        args.stagecheck = binary
        # One scratch directory per worker thread.
        free = [os.path.join(tmp, f"worker{i}") for i in range(max(1, args.jobs))]
        for d in free:
            os.makedirs(d)
        lock = threading.Lock()

        def work(bundle, baseline, record, rel, mutated):
            with lock:
                scratch = free.pop()
            try:
                return judge(args, bundle, baseline, record, rel, mutated, cache, scratch)
            finally:
                with lock:
                    free.append(scratch)

        futures = []
        baselines = {}
        for record in json.load(open(args.recheck)) if args.recheck else []:
            if record["outcome"] in ("caught",) + SET_ASIDE:
                futures.append(pool.submit(lambda r=record: r))
                continue
            found = recorded_mutant(args.dirs, record)
            if found is None:
                print(f"not found    {record['bundle']} {record['stage']} line {record['line']}")
                continue
            bundle, rel, mutated = found
            if bundle not in baselines:
                baselines[bundle], _ = audit_verdicts(args.stagecheck, bundle, cache,
                                                      os.path.join(tmp, "baseline.json"))
            futures.append(pool.submit(work, bundle, baselines[bundle], dict(record), rel, mutated))
        for bundle in [] if args.recheck else bundles_under(args.dirs):
            baseline, _ = audit_verdicts(args.stagecheck, bundle, cache,
                                         os.path.join(tmp, "baseline.json"))
            if baseline is None:
                continue
            for record, rel, mutated in mutants_of(bundle, baseline, stages,
                                                   args.per_operator, rng, operators):
                futures.append(pool.submit(work, bundle, baseline, record, rel, mutated))
        records = [f.result() for f in futures]
    table = collections.defaultdict(collections.Counter)
    for r in records:
        table[(r["stage"], r["operator"])][r["outcome"]] += 1
    print("\n| stage | operator | mutants | equivalent | bounded-equivalent | launch-equivalent | invalid | caught | mislocated | inconclusive | unsettled | missed | score |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (stage, op), c in sorted(table.items()):
        counted = sum(c[o] for o in COUNTED)
        score = f"{100 * c['caught'] / counted:.0f}%" if counted else "-"
        print(f"| {stage} | {op} | {sum(c.values())} | {c['equivalent']} | "
              f"{c['bounded-equivalent']} | {c['launch-equivalent']} | {c['invalid']} | "
              f"{c['caught']} | {c['mislocated']} | {c['inconclusive']} | {c['unsettled']} | "
              f"{c['missed']} | {score} |")
    print("\n| stage | mutants | set aside | caught | counted | score |")
    print("|---|---|---|---|---|---|")
    for stage in stages:
        c = collections.Counter()
        for (st, _), counts in table.items():
            if st == stage:
                c.update(counts)
        counted = sum(c[o] for o in COUNTED)
        aside = sum(c[o] for o in SET_ASIDE)
        score = f"{100 * c['caught'] / counted:.1f}%" if counted else "-"
        print(f"| {stage} | {sum(c.values())} | {aside} | {c['caught']} | {counted} | {score} |")
    if args.json:
        json.dump(records, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
