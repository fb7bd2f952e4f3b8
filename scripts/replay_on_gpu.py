#!/usr/bin/env python3
"""Replays stagecheck counterexamples on the GPU, with torch and Triton.

usage: replay_on_gpu.py REPORT.json... [-o RESULTS.json]

Each REPORT is what `stagecheck audit BUNDLE --json REPORT` wrote. For every
FX -> TTIR counterexample, the bundle's own program runs on the device with
the counterexample's input: every input tensor is zero except the elements
the counterexample fixes, scalar parameters take the counterexample's
values. The reference (the bundle's `Model`) and the candidate (`ModelNew`,
or `torch.compile(Model)` for an inductor bundle) run side by side and the
output element the counterexample names is printed from both, with whether
the hardware shows the difference the prover found.

Runs only where torch, Triton and a GPU are; stagecheck itself never needs it.
"""
import argparse
import importlib.util
import inspect
import json
import math
import os
import struct
import sys

import torch

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
          "f64": torch.float64, "i64": torch.int64, "i32": torch.int32,
          "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8, "bool": torch.bool}


def value_of(v):
    """A counterexample value (type, bits) as a Python number."""
    bits = int(v["bits"])
    t = v["type"]
    if t == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if t == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if t == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if t == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    width = int(t[1:])
    return bits - (1 << width) if bits >> (width - 1) & 1 and width > 1 else bits


def load_module(path):
    spec = importlib.util.spec_from_file_location("bundle_source", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def replay(report_path):
    report = json.load(open(report_path))
    bundle = report["bundle_dir"]
    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    pair = next((p for p in report["program"] if p["pair"] == "fx->ttir"), None)
    if not pair or not pair["result"]["counterexample"]:
        return {"bundle": report["bundle"], "replayed": False,
                "why": "no FX -> TTIR counterexample in the report"}
    cex = pair["result"]["counterexample"]
    source = os.path.join(bundle, manifest["reference"]["source"])
    module = load_module(source)

    # Inputs: zeros, then the counterexample's elements, by storage offset.
    tensors = manifest["tensors"]
    inputs = []
    by_name = {}
    for placeholder in manifest["reference"]["inputs"]:
        t = tensors[placeholder["tensor"]]
        storage = torch.zeros(max(1, sum((s - 1) * st for s, st in zip(t["shape"], t["strides"])) + 1
                                  + t.get("offset", 0)), dtype=DTYPES[t["dtype"]], device="cuda")
        view = storage.as_strided(t["shape"], t["strides"], t.get("offset", 0))
        by_name[placeholder["tensor"]] = storage
        by_name[placeholder["placeholder"]] = storage
        if t["role"] == "input":
            inputs.append((t.get("input_index", len(inputs)), view))
    for x in cex["inputs"]:
        if "buffer" in x and x["buffer"] in by_name:
            by_name[x["buffer"]][x["index"]] = value_of(x["value"])
    inputs = [v for _, v in sorted(inputs, key=lambda p: p[0])]

    # Parameters: the counterexample's value where it names one.
    params = dict(manifest["reference"].get("params", {}))
    for x in cex["inputs"]:
        if "buffer" not in x and x["name"] in params:
            params[x["name"]] = value_of(x["value"])
    init = list(module.get_init_inputs())
    names = list(inspect.signature(module.Model.__init__).parameters)[1:]
    for i, name in enumerate(names[:len(init)]):
        if name in params:
            init[i] = params[name]

    reference = module.Model(*init).cuda()
    if manifest["origin"]["mode"] == "inductor":
        candidate = torch.compile(module.Model(*init).cuda())
        candidate.load_state_dict(reference.state_dict())
    else:
        candidate = module.ModelNew(*init).cuda()
        try:
            candidate.load_state_dict(reference.state_dict(), strict=False)
        except Exception:
            pass
    with torch.no_grad():
        want = reference(*inputs)
        got = candidate(*inputs)
    torch.cuda.synchronize()
    want = want if isinstance(want, (tuple, list)) else (want,)
    got = got if isinstance(got, (tuple, list)) else (got,)
    outputs = manifest["reference"]["outputs"]
    index = cex.get("index")
    which = outputs.index(cex["buffer"]) if cex.get("buffer") in outputs else 0
    flat_want = want[which].reshape(-1)
    flat_got = got[which].reshape(-1)
    if index is None or index >= flat_want.numel():
        index = int((flat_want - flat_got).abs().argmax())
    a, b = float(flat_want[index]), float(flat_got[index])
    differs = not (a == b or (math.isnan(a) and math.isnan(b)))
    return {"bundle": report["bundle"], "replayed": True, "index": index,
            "reference": a, "candidate": b, "hardware_differs": differs,
            "prover_reference": cex.get("source"), "prover_candidate": cex.get("target"),
            "params": params, "max_abs_diff": float((flat_want.float() - flat_got.float()).abs().max())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    results = []
    for r in args.reports:
        try:
            results.append(replay(r))
        except Exception as e:  # one broken replay must not hide the others
            results.append({"report": r, "replayed": False, "why": repr(e)})
        print(json.dumps(results[-1]), flush=True)
    if args.output:
        json.dump(results, open(args.output, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
