"""Compares an audit report with a bundle's expected.json.

usage: check_audit.py REPORT.json EXPECTED.json BUNDLE_NAME KNOWN_GAPS EXIT_CODE

Every pair with a checker must give the expected verdict, in every launch;
a pair listed in KNOWN_GAPS (bundle pair reason) may instead be `unknown`,
and must be: a gap that closes is removed from the list. When every pair has
a checker and the bundle has no known gap, the audit's exit code must be the
expected one.
"""
import json
import sys

report = json.load(open(sys.argv[1]))
expected = json.load(open(sys.argv[2]))
bundle = sys.argv[3]
gaps = set()
for line in open(sys.argv[4]):
    line = line.strip()
    if line and not line.startswith("#"):
        name, pair = line.split()[:2]
        gaps.add((name, pair))
exit_code = int(sys.argv[5])

spelling = {"proved": "proved", "proved within tolerance": "proved-within-tolerance",
            "counterexample": "counterexample", "unknown": "unknown", "error": "error"}
problems = []
all_checked = True
pairs = [(None, p) for p in report["program"]]
pairs += [(k["kernel"], p) for k in report["kernels"] for p in k["pairs"]]
for kernel, p in pairs:
    result = p["result"]
    where = f"{p['pair']}" + (f" in {kernel}" if kernel else "")
    if result["verdict"] == "unknown" and result["reason"].startswith("no checker for"):
        all_checked = False
        continue
    want = expected["pairs"][p["pair"]]
    got = spelling[result["verdict"]]
    if (bundle, p["pair"]) in gaps:
        if got != "unknown":
            problems.append(f"{where}: listed as a known gap but now gives {got} "
                            f"(expected {want}): remove it from known-gaps.txt")
        continue
    if got != want:
        problems.append(f"{where}: {got} ({result['reason']}), expected {want}")
# The exit code is the composed verdict: comparable when every pair was
# decided as expected (a known gap stays unknown and makes it 2).
gapped = any(name == bundle for name, _ in gaps)
if all_checked and not gapped and exit_code != expected["exit_code"]:
    problems.append(f"exit code {exit_code}, expected {expected['exit_code']}")
for p in problems:
    print(f"{bundle}: {p}")
sys.exit(1 if problems else 0)
