#!/usr/bin/env python3
"""Measures how many Z3 resource units this machine's solver counts a
millisecond: the rate behind smt::UnitsPerMs (docs/design-decisions.md,
"Budgets are solver work, not seconds").

usage: STAGECHECK_SOLVER_LOG=/tmp/attempts stagecheck corpus tests/corpus ...
       scripts/calibrate_units.py [--min-units 1000000] /tmp/attempts

The log has one line per solver attempt: units given, units used, wall-clock
milliseconds, where it ran (here: in the auditing process; child: in a
forked one), how it ended, the query's name, and the processor
milliseconds the attempt spent (the rate is taken over these when the log
has them, so a busy machine does not lower it). Attempts that used fewer than
--min-units are left out (their time is mostly starting the attempt: the
fork, the encoding, which the units do not count). Prints the rate's quartiles over the attempts kept, for each
place and by query name; exits 1 when no attempt is long enough to measure.
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
    rates, by_place, by_name = [], collections.defaultdict(list), collections.defaultdict(list)
    with open(a.log) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 6:
                continue
            given, used, ms = int(fields[0]), int(fields[1]), float(fields[2])
            if len(fields) >= 7:
                ms = float(fields[6])
            place, ending, name = fields[3], fields[4], fields[5]
            # Given 0: a query held to the clock (over the reals, or one
            # that counts slowly), whose budget is not units.
            if given == 0 or used < a.min_units or ms <= 0 or ending in ("killed", "failed"):
                continue
            rates.append(used / ms)
            by_place[place].append(used / ms)
            by_name[name].append(used / ms)
    if not rates:
        print(f"no attempt of {a.min_units} units or more in {a.log}")
        return 1

    def line(label, r):
        q = quartiles(r)
        return (f"{label}: {len(r)} attempts, units a ms p25 {q[0]:.0f}  "
                f"median {q[1]:.0f}  p75 {q[2]:.0f}")

    print(line(f"attempts of {a.min_units} units or more", rates))
    for place, r in sorted(by_place.items()):
        print("  " + line(place, r))
    for name, r in sorted(by_name.items(), key=lambda kv: -len(kv[1])):
        print(f"    {name:40s} {len(r):5d}  median {statistics.median(r):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
