"""Compares a bundle `stagecheck import` made with the bundle capture.py made
from the same run: the same program, bound the same way, the same stage files.

usage: compare_bundles.py IMPORTED CAPTURED
Fields only a live capture can know (versions, compile times, the
Python source of a launch) are not compared.
"""
import json
import os
import sys

imported, captured = sys.argv[1], sys.argv[2]
a = json.load(open(os.path.join(imported, "manifest.json")))
b = json.load(open(os.path.join(captured, "manifest.json")))
problems = []


def same(what, x, y):
    if x != y:
        problems.append(f"{what}: imported {x!r}, captured {y!r}")


def read(bundle, path):
    with open(os.path.join(bundle, path), "rb") as f:
        return f.read()


same("reference graph", read(imported, a["reference"]["graph"]), read(captured, b["reference"]["graph"]))
same("reference outputs", a["reference"]["outputs"], b["reference"]["outputs"])
same("reference inputs", [i["tensor"] for i in a["reference"]["inputs"]],
     [i["tensor"] for i in b["reference"]["inputs"]])
same("tensor names", sorted(a["tensors"]), sorted(b["tensors"]))
for name in sorted(set(a["tensors"]) & set(b["tensors"])):
    ta, tb = a["tensors"][name], b["tensors"][name]
    for field in ("dtype", "shape", "strides", "offset", "role", "input_index", "output_index", "alias_of"):
        same(f"tensors.{name}.{field}", ta.get(field), tb.get(field))
same("step kinds", [s["kind"] for s in a["steps"]], [s["kind"] for s in b["steps"]])
for i, (sa, sb) in enumerate(zip(a["steps"], b["steps"])):
    if sa["kind"] == "extern":
        for field in ("op", "inputs", "output"):
            same(f"steps[{i}].{field}", sa.get(field), sb.get(field))
        continue
    for field in ("kernel", "grid", "num_warps", "num_stages", "hash", "triton_cache_key"):
        same(f"steps[{i}].{field}", sa.get(field), sb.get(field))
    strip = lambda arg: {k: v for k, v in arg.items() if k in ("name", "type", "tensor", "element_offset", "value")}
    same(f"steps[{i}].args", [strip(x) for x in sa["args"]], [strip(x) for x in sb["args"]])
    for stage in ("ttir", "ttgir", "llir", "ptx", "metadata"):
        same(f"steps[{i}].files.{stage} content", read(imported, sa["files"][stage]), read(captured, sb["files"][stage]))

for p in problems:
    print("DIFFERS:", p)
sys.exit(1 if problems else 0)
