#!/usr/bin/env python3
"""The mutation harness (scripts/mutate.py) on real stage files.

usage: test_mutate.py STAGECHECK PROJECT_DIR

- Every site an operator finds in a corpus stage file gives a mutant that
  differs from the original on that line only, and the LLVM IR operators'
  mutants still parse (an operator that writes what no compiler writes would
  be set aside as invalid, and the score would not count it).
- End to end on tutorial_vector_add: every mutant of each stage is caught at
  the pair that ends at that stage, or proved equivalent; none is invalid,
  missed or put at another pair.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

STAGECHECK, PROJECT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(PROJECT, "scripts"))
import mutate  # noqa: E402

CORPUS = os.path.join(PROJECT, "tests/corpus")


def read_lines(path):
    with open(path) as f:
        return f.read().split("\n")


def stage_files(stage):
    for bundle in mutate.bundles_under([CORPUS]):
        with open(os.path.join(bundle, "manifest.json")) as f:
            manifest = json.load(f)
        for step in manifest["steps"]:
            if step["kind"] == "launch":
                yield os.path.join(bundle, step["files"][stage])


class Operators(unittest.TestCase):
    def test_each_mutant_changes_its_line_only(self):
        for stage, operators in mutate.OPERATORS.items():
            for path in stage_files(stage):
                lines = read_lines(path)
                for op in operators:
                    for site in op.sites(lines):
                        mutant = op.apply(lines, site)
                        changed = [i for i in range(len(lines)) if lines[i] != mutant[i]]
                        self.assertEqual(changed, [site[0]], f"{op.name} at {path}:{site[0] + 1}")

    def test_reduce_combiner_stays_inside_the_region(self):
        # An addf after a reduce (logsumexp's log(sum) + max) is not its
        # combiner; the one inside is.
        lines = [
            "  tt.func public @k() {",
            '    %r = "tt.reduce"(%x) <{axis = 1 : i32}> ({',
            "    ^bb0(%a: f32, %b: f32):",
            "      %s = arith.addf %a, %b : f32",
            "      tt.reduce.return %s : f32",
            "    }) : (tensor<8x64xf32>) -> tensor<8xf32>",
            "    %t = arith.addf %r, %m : tensor<8xf32>",
        ]
        op = next(o for o in mutate.TRITON_OPERATORS if o.name == "reduce-combiner")
        self.assertEqual([site[0] for site in op.sites(lines)], [3])

    def test_llvm_ir_swaps_parse(self):
        # Inlined libdevice names hold dots (%r.i.1.i46): a swap must move
        # whole names.
        op = next(o for o in mutate.LLIR_OPERATORS if o.name == "swap-operands")
        swapped = 0
        with tempfile.TemporaryDirectory() as tmp:
            for path in stage_files("llir"):
                lines = read_lines(path)
                for site in op.sites(lines):
                    names = op.pattern.match(lines[site[0]], site[1]).group(2, 3)
                    if not any("." in n for n in names):
                        continue
                    mutant = os.path.join(tmp, "mutant.llir")
                    with open(mutant, "w") as f:
                        f.write("\n".join(op.apply(lines, site)))
                    r = subprocess.run([STAGECHECK, "check", "--from", "llir", "--to", "llir",
                                        "--pair-time-limit-s", "1", path, mutant],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                    self.assertNotEqual(r.returncode, 3, f"{path}:{site[0] + 1}: {r.stdout[-300:]}")
                    swapped += 1
        self.assertGreater(swapped, 0, "no swap of dotted names was tried")


class EndToEnd(unittest.TestCase):
    def test_vector_add_mutants_are_caught_where_they_enter(self):
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "mutants.json")
            r = subprocess.run([sys.executable, os.path.join(PROJECT, "scripts/mutate.py"),
                                "--stagecheck", STAGECHECK, "--per-operator", "1",
                                "--stages", "ttgir,llir,ptx", "--jobs", "2", "--json", report,
                                os.path.join(CORPUS, "tutorial_vector_add")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout[-2000:])
            with open(report) as f:
                records = json.load(f)
        by_stage = {}
        for rec in records:
            by_stage.setdefault(rec["stage"], []).append(rec["outcome"])
            self.assertIn(rec["outcome"], ("caught", "equivalent"), json.dumps(rec))
        for stage in ("ttgir", "llir", "ptx"):
            self.assertIn("caught", by_stage.get(stage, []), f"no {stage} mutant caught")
        # The summary table counts them.
        self.assertIn("| llir |", r.stdout)

    def test_an_inconclusive_mutant_keeps_its_reason(self):
        # A stand-in for stagecheck whose audit writes a report where the
        # mutated pair is unknown: the record says why, for triage.
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "stagecheck")
            with open(fake, "w") as f:
                f.write("#!/usr/bin/env python3\n"
                        "import json, sys\n"
                        "out = sys.argv[sys.argv.index('--json') + 1]\n"
                        "pair = lambda p, v, r: {'pair': p, 'result': {'verdict': v, 'reason': r}}\n"
                        "json.dump({'program': [pair('fx->ttir', 'proved', '')],\n"
                        "           'kernels': [{'kernel': 'k', 'pairs': [\n"
                        "               pair('ttir->ttgir', 'proved', ''),\n"
                        "               pair('ttgir->llir', 'unknown', 'values: timeout after 20000 ms')]}]},\n"
                        "          open(out, 'w'))\n"
                        "sys.exit(2)\n")
            os.chmod(fake, 0o755)
            original = {(None, "fx->ttir"): "proved", ("k", "ttir->ttgir"): "proved"}
            outcome, notes = mutate.classify(fake, tmp, "llir", "k", os.path.join(tmp, "cache"),
                                             os.path.join(tmp, "report.json"), original)
        self.assertEqual(outcome, "inconclusive")
        self.assertEqual(notes, ["ttgir->llir: values: timeout after 20000 ms"])

    def test_a_directory_without_bundles_is_an_error(self):
        # Not an empty table that reads as "nothing missed".
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, os.path.join(PROJECT, "scripts/mutate.py"),
                                "--stagecheck", STAGECHECK, tmp],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("no bundle", r.stdout)

    def test_bundles_behind_links_are_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.join(CORPUS, "tutorial_vector_add"),
                       os.path.join(tmp, "linked"))
            self.assertEqual([os.path.basename(b) for b in mutate.bundles_under([tmp])],
                             ["linked"])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
