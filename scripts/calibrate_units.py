#!/usr/bin/env python3
"""Measures how many Z3 resource units this machine's solver counts a
millisecond: the rate behind smt::UnitsPerMs (docs/design-decisions.md,
"Budgets are solver work, not seconds").

usage: STAGECHECK_SOLVER_LOG=/tmp/attempts stagecheck corpus tests/corpus ...
       scripts/calibrate_units.py [--min-units 1000000] /tmp/attempts

The log has one line per solver attempt: units given, units used, wall-clock
milliseconds, how it ended, the query's name. Attempts that used fewer than
--min-units are left out (their time is mostly starting the attempt: the
fork, the encoding, which the units do not count). Prints the rate's quartiles over the attempts kept, and by query
name; exits 1 when no attempt is long enough to measure.
"""
import argparse
import collections
import statistics
import sys


def quartiles(rates):
    if len(rates) < 2:
        return [rates[0]] * 3
    return statistics.quantiles(rates, n=4)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--min-units", type=int, default=1000000)
    a = ap.parse_args()
    rates, by_name = [], collections.defaultdict(list)
    with open(a.log) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 5:
                continue
            given, used, ms = int(fields[0]), int(fields[1]), float(fields[2])
            # Given 0: a query over the reals, whose budget is not units.
            if given == 0 or used < a.min_units or fields[3] in ("killed", "failed"):
                continue
            rates.append(used / ms)
            by_name[fields[4]].append(used / ms)
    if not rates:
        print(f"no attempt of {a.min_units} units or more in {a.log}")
        return 1
    q = quartiles(rates)
    print(f"{len(rates)} attempts of {a.min_units} units or more: units a ms "
          f"p25 {q[0]:.0f}  median {q[1]:.0f}  p75 {q[2]:.0f}")
    for name, r in sorted(by_name.items(), key=lambda kv: -len(kv[1])):
        print(f"  {name:40s} {len(r):5d}  median {statistics.median(r):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
