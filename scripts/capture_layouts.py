#!/usr/bin/env python3
"""Ground truth for stagecheck's layout library, taken from Triton itself.

    capture_layouts.py list [--corpus DIR]...        # no triton needed
    capture_layouts.py capture -o OUTDIR [--corpus DIR]...

`list` prints every (encoding, shape) pair that occurs in the TTGIR files of
the corpus (tests/corpus/*/kernels/*/*.ttgir): each `tensor<SHAPExT, ENC>` and
`!ttg.memdesc<SHAPExT, ENC, ...>` type, with ENC's aliases resolved.

`capture` (on a machine with Triton 3.6 and a GPU) writes into OUTDIR:

  layouts.json   for every corpus pair and a list of extra cases (mma v3,
                 nvmma_shared, shapes smaller and larger than a layout's
                 coverage, 3-D blocked, slice of a slice, ...): the linear
                 layout Triton computes for it (GluonOpBuilder.to_linear_layout),
                 as its bases per input dimension (register, lane, warp,
                 block), together with the encoding text, the aliases it
                 uses and where the pair occurs. Triton 3.6's binding aborts
                 on shared encodings (it wraps every result in a distributed
                 #ttg.linear attribute): those cases are tried and logged;
                 tests/layout checks shared layouts otherwise;
  measured.json  for a few kernels run on the GPU: the thread (%tid.x) that
                 computed each element of a tensor, read back from memory,
                 together with that tensor's encoding in the kernel's TTGIR;
  ttgir/*.ttgir  the TTGIR of those kernels (more encodings for the tests);
  log.txt        what was tried and what failed.

Each query to Triton runs in a forked child, so an encoding Triton rejects
with a fatal error costs that case only (it is logged, never silently kept).
"""

import argparse
import glob
import json
import os
import re
import sys
import traceback

LOG_LINES = []


def log(msg):
    LOG_LINES.append(msg)
    print(f"[layouts] {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------
# Encoding text: a small parser for what Triton prints in TTGIR.
# ----------------------------------------------------------------------------


class EncodingSyntaxError(Exception):
    pass


def parse_encoding(text, aliases):
    """'#ttg.blocked<{...}>' or '#alias' -> ('name', {field: value}).

    Values: int, bool, list (of ints or lists), or a nested encoding."""
    pos = [0]

    def peek():
        while pos[0] < len(text) and text[pos[0]].isspace():
            pos[0] += 1
        return text[pos[0]] if pos[0] < len(text) else ""

    def expect(ch):
        if peek() != ch:
            raise EncodingSyntaxError(f"expected '{ch}' at {pos[0]} in {text!r}")
        pos[0] += 1

    def ident():
        peek()
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*").match(text, pos[0])
        if not m:
            raise EncodingSyntaxError(f"expected a name at {pos[0]} in {text!r}")
        pos[0] = m.end()
        return m.group(0)

    def value():
        c = peek()
        if c == "#":
            return encoding()
        if c == "[":
            pos[0] += 1
            items = []
            if peek() == "]":
                pos[0] += 1
                return items
            while True:
                items.append(value())
                if peek() == ",":
                    pos[0] += 1
                    continue
                expect("]")
                return items
        m = re.compile(r"-?[0-9]+").match(text, pos[0])
        if m:
            pos[0] = m.end()
            return int(m.group(0))
        word = ident()
        if word in ("true", "false"):
            return word == "true"
        raise EncodingSyntaxError(f"unexpected value {word!r} in {text!r}")

    def encoding():
        expect("#")
        name = ident()
        if peek() != "<":
            if name not in aliases:
                raise EncodingSyntaxError(f"unknown alias #{name}")
            return parse_encoding(aliases[name], aliases)
        expect("<")
        fields = {}
        if peek() == "{":
            pos[0] += 1
            while peek() != "}":
                key = ident()
                expect("=")
                fields[key] = value()
                if peek() == ",":
                    pos[0] += 1
            expect("}")
        expect(">")
        return (name, fields)

    result = encoding()
    if peek() != "":
        raise EncodingSyntaxError(f"trailing text at {pos[0]} in {text!r}")
    return result


def encoding_rank(enc):
    name, f = enc
    if name == "ttg.blocked":
        return len(f["order"])
    if name == "ttg.slice":
        return encoding_rank(f["parent"]) - 1
    if name == "ttg.nvidia_mma":
        return len(f["warpsPerCTA"])
    if name == "ttg.dot_op":
        return encoding_rank(f["parent"])
    if name == "ttg.swizzled_shared":
        return len(f["order"])
    if "CTAOrder" in f:
        return len(f["CTAOrder"])
    return None


def alias_names(text):
    return sorted(set(re.findall(r"#([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_.<])", text)))


def aliases_used(text, aliases, seen=None):
    """The alias definitions `text` needs, transitively."""
    seen = {} if seen is None else seen
    for name in alias_names(text):
        if name in aliases and name not in seen:
            seen[name] = aliases[name]
            aliases_used(aliases[name], aliases, seen)
    return seen


# ----------------------------------------------------------------------------
# TTGIR scanning
# ----------------------------------------------------------------------------

ALIAS_RE = re.compile(r"^#([A-Za-z_][A-Za-z0-9_]*) = (#ttg\..*)$", re.M)


def read_aliases(text):
    return {m.group(1): m.group(2).strip() for m in ALIAS_RE.finditer(text)}


def balanced(text, start):
    """text[start] is '<'; returns the index just past its matching '>'."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise EncodingSyntaxError("unbalanced type at %d" % start)


def split_top(body):
    """Splits at commas outside <>, {}, []."""
    parts, depth, cur = [], 0, ""
    for c in body:
        if c in "<{[":
            depth += 1
        elif c in ">}]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def shaped_types(text):
    """Yields (kind, shape, encoding text) for every tensor/memdesc type."""
    for kind, opener in (("tensor", "tensor<"), ("memdesc", "!ttg.memdesc<")):
        start = 0
        while True:
            i = text.find(opener, start)
            if i < 0:
                break
            if kind == "tensor" and i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_."):
                start = i + 1
                continue
            lt = i + len(opener) - 1
            end = balanced(text, lt)
            body = text[lt + 1:end - 1]
            start = end
            parts = split_top(body)
            if len(parts) < 2 or not parts[1].startswith("#"):
                continue
            m = re.match(r"^((?:[0-9]+x)*)", parts[0])
            dims = [int(d) for d in m.group(1).split("x") if d]
            yield kind, dims, parts[1]


def corpus_cases(corpus_dirs):
    """Unique (encoding, shape) pairs of the corpus, with where they occur."""
    cases = {}
    for d in corpus_dirs:
        files = sorted(glob.glob(os.path.join(d, "*", "kernels", "*", "*.ttgir")))
        files += sorted(glob.glob(os.path.join(d, "*.ttgir")))
        for path in files:
            add_file_cases(cases, path, os.path.relpath(path, os.path.dirname(os.path.abspath(d))))
    return cases


def add_file_cases(cases, path, label):
    text = open(path).read()
    aliases = read_aliases(text)
    for kind, shape, enc_text in shaped_types(text):
        if enc_text.startswith("#smem") or "shared_memory" in aliases.get(enc_text[1:], ""):
            continue
        try:
            enc = parse_encoding(enc_text, aliases)
        except EncodingSyntaxError as e:
            log(f"{label}: cannot read {enc_text}: {e}")
            continue
        rank = encoding_rank(enc)
        if kind == "memdesc" and rank is not None and len(shape) > rank:
            shape = shape[len(shape) - rank:]  # leading dims index buffers
        if rank is not None and rank != len(shape):
            log(f"{label}: rank {rank} of {enc_text} does not match shape {shape}")
            continue
        used = aliases_used(enc_text, aliases)
        resolved = resolve_text(enc_text, aliases)
        key = (resolved, tuple(shape))
        if key not in cases:
            cases[key] = {"encoding": enc_text, "aliases": used, "shape": shape, "sources": []}
        if label not in cases[key]["sources"]:
            cases[key]["sources"].append(label)


def resolve_text(text, aliases):
    """The encoding text with every alias replaced by its definition."""
    def sub(m):
        name = m.group(1)
        return resolve_text(aliases[name], aliases) if name in aliases else m.group(0)
    return re.sub(r"#([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_.<])", sub, text)


# ----------------------------------------------------------------------------
# Extra cases: what the corpus lacks, written as Triton 3.6 prints it.
# ----------------------------------------------------------------------------

def blocked(spt, tpw, wpc, order):
    f = lambda v: "[" + ", ".join(map(str, v)) + "]"
    return (f"#ttg.blocked<{{sizePerThread = {f(spt)}, threadsPerWarp = {f(tpw)}, "
            f"warpsPerCTA = {f(wpc)}, order = {f(order)}}}>")


def mma(major, minor, wpc, instr):
    f = lambda v: "[" + ", ".join(map(str, v)) + "]"
    return (f"#ttg.nvidia_mma<{{versionMajor = {major}, versionMinor = {minor}, "
            f"warpsPerCTA = {f(wpc)}, instrShape = {f(instr)}}}>")


def extra_cases():
    out = []

    def add(enc, aliases, shapes, why):
        for s in shapes:
            out.append({"encoding": enc, "aliases": aliases, "shape": list(s), "sources": ["extra: " + why]})

    b1 = blocked([4], [32], [4], [0])
    add(b1, {}, [[8], [128], [512], [2048], [1]], "1-D blocked, smaller and larger than its coverage")
    b2 = blocked([1, 4], [4, 8], [2, 2], [1, 0])
    add(b2, {}, [[1, 1], [4, 8], [8, 64], [64, 64], [128, 16], [2, 256]], "2-D blocked, row-major")
    b2c = blocked([2, 1], [8, 4], [1, 4], [0, 1])
    add(b2c, {}, [[16, 16], [64, 8], [256, 64]], "2-D blocked, column-major")
    b3 = blocked([1, 1, 4], [1, 4, 8], [2, 2, 1], [2, 1, 0])
    add(b3, {}, [[2, 8, 32], [4, 16, 64], [1, 1, 4], [8, 4, 16]], "3-D blocked")
    b3o = blocked([2, 1, 1], [2, 2, 8], [1, 2, 2], [0, 2, 1])
    add(b3o, {}, [[4, 8, 32], [16, 4, 16]], "3-D blocked, mixed order")
    add("#ttg.slice<{dim = 0, parent = #b3}>", {"b3": b3}, [[16, 64], [4, 8]], "slice of 3-D blocked")
    add("#ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #b3}>}>", {"b3": b3},
        [[2], [16], [64]], "slice of a slice")
    add("#ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #b3o}>}>", {"b3o": b3o},
        [[32], [4]], "slice of a slice, mixed order")
    add("#ttg.slice<{dim = 1, parent = #b2}>", {"b2": b2}, [[8], [64], [256]], "slice of 2-D blocked")

    m2 = mma(2, 0, [2, 2], [16, 8])
    add(m2, {}, [[16, 8], [32, 32], [64, 128], [16, 16], [128, 64]], "mma v2")
    m2b = mma(2, 0, [4, 1], [16, 8])
    add(m2b, {}, [[64, 32], [128, 128]], "mma v2, 4x1 warps")
    add("#ttg.dot_op<{opIdx = 0, parent = #m2, kWidth = 2}>", {"m2": m2}, [[32, 32], [64, 64], [16, 16]],
        "dot operand A of mma v2")
    add("#ttg.dot_op<{opIdx = 1, parent = #m2, kWidth = 2}>", {"m2": m2}, [[32, 32], [64, 64], [16, 8]],
        "dot operand B of mma v2")
    add("#ttg.dot_op<{opIdx = 0, parent = #m2, kWidth = 4}>", {"m2": m2}, [[64, 64]], "dot operand A, kWidth 4")
    add("#ttg.dot_op<{opIdx = 1, parent = #m2, kWidth = 8}>", {"m2": m2}, [[64, 64]], "dot operand B, kWidth 8")
    add("#ttg.slice<{dim = 1, parent = #m2}>", {"m2": m2}, [[32], [64]], "slice of mma v2")
    add("#ttg.slice<{dim = 0, parent = #m2}>", {"m2": m2}, [[32], [8]], "slice of mma v2, dim 0")

    m3 = mma(3, 0, [4, 1], [16, 64, 16])
    add(m3, {}, [[64, 64], [128, 128], [16, 32], [64, 256]], "mma v3")
    m3b = mma(3, 0, [4, 2], [16, 128, 16])
    add(m3b, {}, [[128, 256], [64, 128]], "mma v3, 4x2 warps")
    add("#ttg.dot_op<{opIdx = 0, parent = #m3, kWidth = 2}>", {"m3": m3}, [[64, 32], [128, 64]],
        "dot operand A of mma v3")
    add("#ttg.slice<{dim = 1, parent = #m3}>", {"m3": m3}, [[64], [128]], "slice of mma v3")

    add("#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>", {},
        [[32, 32], [64, 64], [16, 128], [128, 16]], "swizzled shared")
    add("#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]}>", {},
        [[64, 32], [8, 8]], "swizzled shared, column-major")
    add("#ttg.swizzled_shared<{vec = 2, perPhase = 4, maxPhase = 2, order = [2, 1, 0]}>", {},
        [[2, 16, 32]], "swizzled shared, 3-D")
    add("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>", {},
        [[16, 16]], "unswizzled shared")
    for swz, bits, tr, shapes in [(128, 16, "false", [[64, 64], [128, 64], [8, 64]]),
                                  (64, 16, "false", [[64, 32], [32, 64]]),
                                  (32, 16, "false", [[16, 16], [64, 16]]),
                                  (128, 8, "false", [[64, 128]]),
                                  (128, 32, "false", [[32, 32]]),
                                  (128, 16, "true", [[64, 64], [64, 128]]),
                                  (0, 16, "false", [[16, 16]])]:
        add(f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swz}, transposed = {tr}, elementBitWidth = {bits}}}>",
            {}, shapes, "nvmma shared")
    return out


# ----------------------------------------------------------------------------
# Triton: encoding -> Gluon layout object -> linear layout
# ----------------------------------------------------------------------------

def gluon_layout(enc, shape):
    from triton.experimental.gluon import language as ttgl
    name, f = enc
    if name == "ttg.blocked":
        extra = {}
        if "CTAsPerCGA" in f and any(c != 1 for c in f["CTAsPerCGA"]):
            extra = dict(ctas_per_cga=f["CTAsPerCGA"], cta_split_num=f["CTASplitNum"], cta_order=f["CTAOrder"])
        return ttgl.BlockedLayout(f["sizePerThread"], f["threadsPerWarp"], f["warpsPerCTA"], f["order"], **extra)
    if name == "ttg.slice":
        return ttgl.SliceLayout(f["dim"], gluon_layout(f["parent"], None))
    if name == "ttg.nvidia_mma":
        return ttgl.NVMMADistributedLayout(version=[f["versionMajor"], f["versionMinor"]],
                                           warps_per_cta=f["warpsPerCTA"], instr_shape=f["instrShape"])
    if name == "ttg.dot_op":
        return ttgl.DotOperandLayout(operand_index=f["opIdx"], parent=gluon_layout(f["parent"], None),
                                     k_width=f["kWidth"])
    if name == "ttg.swizzled_shared":
        return ttgl.SwizzledSharedLayout(f["vec"], f["perPhase"], f["maxPhase"], f["order"])
    if name == "ttg.nvmma_shared":
        return ttgl.NVMMASharedLayout(swizzle_byte_width=f["swizzlingByteWidth"],
                                      element_bitwidth=f["elementBitWidth"], rank=len(shape),
                                      transposed=f.get("transposed", False), fp4_padded=f.get("fp4Padded", False))
    raise ValueError(f"no Gluon layout for {name}")


_BUILDER = []


def builder():
    if not _BUILDER:
        from triton._C.libtriton import ir, gluon_ir
        ctx = ir.context()
        ir.load_dialects(ctx)
        _BUILDER.append((ctx, gluon_ir.GluonOpBuilder(ctx)))
    return _BUILDER[0][1]


def plain(v):
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "value") and not isinstance(v, (int, bool)):
        return plain(v.value)
    return int(v)


def triton_linear_layout(case):
    enc = parse_encoding(case["encoding"], case["aliases"])
    lay = gluon_layout(enc, case["shape"])
    b = builder()
    attr = lay._to_ir(b)
    if hasattr(b, "to_linear_layout"):
        ll = b.to_linear_layout(attr, list(case["shape"]))
    else:
        from triton.experimental.gluon import language as ttgl
        ll = ttgl.to_linear_layout(lay, list(case["shape"]))
        ll = getattr(ll, "value", ll)
    bases = {}
    for key, field in (("register", "reg_bases"), ("lane", "lane_bases"), ("warp", "warp_bases"),
                       ("block", "block_bases"), ("offset", "offset_bases")):
        if hasattr(ll, field):
            bases[key] = plain(getattr(ll, field))
    if not bases:
        raise RuntimeError(f"unknown linear layout object {type(ll).__name__}: {ll!r}")
    return {"bases": bases}


def describe_api():
    """Logs the Gluon names the capture relies on (for a run that fails)."""
    try:
        b = builder()
        log("builder: " + " ".join(n for n in dir(b) if "layout" in n.lower()))
        from triton.experimental.gluon import language as ttgl
        log("gluon: " + " ".join(n for n in dir(ttgl) if "ayout" in n))
        import inspect
        for n in ("BlockedLayout", "NVMMADistributedLayout", "NVMMASharedLayout", "SwizzledSharedLayout"):
            if hasattr(ttgl, n):
                log(f"{n}{inspect.signature(getattr(ttgl, n))}")
    except Exception:  # noqa: BLE001
        log("describe_api failed:\n" + traceback.format_exc())


def in_child(fn, arg):
    """fn(arg) in a forked child; returns (result, None) or (None, error)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            payload = json.dumps({"ok": fn(arg)})
        except BaseException as e:  # noqa: BLE001 - report everything
            payload = json.dumps({"error": f"{type(e).__name__}: {e}"})
        with os.fdopen(w, "w") as f:
            f.write(payload)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return None, f"child died (status {status})"
    msg = json.loads(data)
    return msg.get("ok"), msg.get("error")


def capture_cases(cases, results):
    for case in cases:
        key = (resolve_text(case["encoding"], case["aliases"]), tuple(case["shape"]))
        if key in results:
            for s in case["sources"]:
                if s not in results[key]["sources"]:
                    results[key]["sources"].append(s)
            continue
        got, err = in_child(triton_linear_layout, case)
        if err:
            log(f"no layout for {key[0]} {list(key[1])}: {err}")
            continue
        entry = dict(case)
        entry.update(got)
        results[key] = entry


# ----------------------------------------------------------------------------
# Kernels run on the GPU: which thread computed each element.
# ----------------------------------------------------------------------------

# The kernels are module-level so that Triton resolves `tl` as a global.
try:
    import triton
    import triton.language as tl
except ImportError:  # `list` needs no triton
    triton = None

if triton is not None:

    @triton.jit
    def tid_1d(out, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        t = tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r,r", [offs], dtype=tl.int32, is_pure=False,
                                      pack=1)
        tl.store(out + offs, t)

    @triton.jit
    def tid_2d(out, M: tl.constexpr, N: tl.constexpr):
        offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
        t = tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r,r", [offs], dtype=tl.int32, is_pure=False,
                                      pack=1)
        tl.store(out + offs, t)

    @triton.jit
    def tid_dot(a_ptr, b_ptr, out, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        rk = tl.arange(0, K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
        acc = tl.dot(a, b)
        t = tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r,r", [acc.to(tl.int32)], dtype=tl.int32,
                                      is_pure=False, pack=1)
        tl.store(out + rm[:, None] * N + rn[None, :], t)

    @triton.jit
    def sum_3d(x_ptr, out, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
        a = tl.arange(0, A)[:, None, None]
        b = tl.arange(0, B)[None, :, None]
        c = tl.arange(0, C)[None, None, :]
        x = tl.load(x_ptr + a * B * C + b * C + c)
        s = tl.sum(tl.sum(x, 2), 1)
        tl.store(out + tl.arange(0, A), s)

    @triton.jit
    def matmul_loop(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))



def run_kernels(outdir):
    import torch

    ttgir_dir = os.path.join(outdir, "ttgir")
    os.makedirs(ttgir_dir, exist_ok=True)
    dev = "cuda"
    measured = []
    written = []

    def keep_ttgir(name, kernel):
        path = os.path.join(ttgir_dir, name + ".ttgir")
        with open(path, "w") as f:
            f.write(kernel.asm["ttgir"])
        written.append(path)
        return kernel.asm["ttgir"]

    def measure(name, ttgir, tids, shape, op_pattern):
        aliases = read_aliases(ttgir)
        enc = None
        for line in ttgir.splitlines():
            if op_pattern in line:
                types = list(shaped_types(line))
                if types:
                    enc = types[-1][2]
                    break
        if enc is None:
            log(f"{name}: no {op_pattern} in its TTGIR")
            return
        measured.append({"name": name, "encoding": enc, "aliases": aliases_used(enc, aliases),
                         "shape": shape, "num_warps": int(re.search(r'"ttg.num-warps" = (\d+)', ttgir).group(1)),
                         "tid": [int(t) for t in tids.flatten().tolist()]})

    def attempt(name, fn):
        try:
            fn()
        except Exception:  # noqa: BLE001
            log(f"{name} failed:\n{traceback.format_exc()}")

    def k1():
        for block, warps in ((256, 4), (64, 2)):
            out = torch.empty(block, dtype=torch.int32, device=dev)
            k = tid_1d[(1,)](out, BLOCK=block, num_warps=warps)
            torch.cuda.synchronize()
            name = f"tid_1d_{block}_w{warps}"
            measure(name, keep_ttgir(name, k), out.cpu(), [block], "tt.elementwise_inline_asm")

    def k2():
        for m, n, warps in ((32, 64, 4), (16, 16, 4)):
            out = torch.empty(m * n, dtype=torch.int32, device=dev)
            k = tid_2d[(1,)](out, M=m, N=n, num_warps=warps)
            torch.cuda.synchronize()
            name = f"tid_2d_{m}x{n}_w{warps}"
            measure(name, keep_ttgir(name, k), out.cpu(), [m, n], "tt.elementwise_inline_asm")

    def k3():
        for m, n, kk, warps in ((64, 64, 32, 4), (16, 32, 16, 4), (128, 128, 32, 8)):
            a = torch.zeros(m * kk, dtype=torch.float16, device=dev)
            b = torch.zeros(kk * n, dtype=torch.float16, device=dev)
            out = torch.empty(m * n, dtype=torch.int32, device=dev)
            k = tid_dot[(1,)](a, b, out, M=m, N=n, K=kk, num_warps=warps)
            torch.cuda.synchronize()
            name = f"tid_dot_{m}x{n}x{kk}_w{warps}"
            measure(name, keep_ttgir(name, k), out.cpu(), [m, n], "tt.elementwise_inline_asm")

    def k4():
        x = torch.zeros(8 * 16 * 32, dtype=torch.float32, device=dev)
        out = torch.empty(8, dtype=torch.float32, device=dev)
        k = sum_3d[(1,)](x, out, A=8, B=16, C=32, num_warps=4)
        torch.cuda.synchronize()
        keep_ttgir("sum_3d", k)

    def k5():
        bm, bn, bk, kdim = 128, 128, 64, 256
        a = torch.zeros(bm * kdim, dtype=torch.float16, device=dev)
        b = torch.zeros(kdim * bn, dtype=torch.float16, device=dev)
        c = torch.empty(bm * bn, dtype=torch.float16, device=dev)
        k = matmul_loop[(1,)](a, b, c, kdim, BM=bm, BN=bn, BK=bk, num_warps=4, num_stages=3)
        torch.cuda.synchronize()
        keep_ttgir("matmul_loop", k)

    for name, fn in (("tid_1d", k1), ("tid_2d", k2), ("tid_dot", k3), ("sum_3d", k4), ("matmul_loop", k5)):
        attempt(name, fn)
    return measured, written


# ----------------------------------------------------------------------------


def default_corpus():
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(os.path.dirname(here), "tests", "corpus")]


def case_list(results):
    out = []
    for (resolved, shape), e in sorted(results.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        out.append({"encoding": e["encoding"], "aliases": e["aliases"], "shape": list(shape),
                    "resolved": resolved, "sources": e["sources"], "bases": e["bases"]})
    return out


def write_json(path, version, key, items):
    """One item a line, so that a regenerated file diffs line by line."""
    with open(path, "w") as f:
        f.write('{"triton": %s,\n "script": "scripts/capture_layouts.py capture",\n "%s": [\n'
                % (json.dumps(version), key))
        f.write(",\n".join("  " + json.dumps(i, separators=(",", ":")) for i in items))
        f.write("\n]}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["list", "capture"])
    ap.add_argument("--corpus", action="append", help="corpus directory (default tests/corpus)")
    ap.add_argument("-o", "--out", help="output directory (capture)")
    ap.add_argument("--no-kernels", action="store_true", help="skip the GPU kernels")
    args = ap.parse_args()
    corpus = args.corpus or default_corpus()
    cases = corpus_cases(corpus)
    if args.mode == "list":
        for (resolved, shape), c in sorted(cases.items()):
            print(f"{list(shape)}\t{resolved}\t{len(c['sources'])} files")
        print(f"{len(cases)} pairs", file=sys.stderr)
        return 0

    os.makedirs(args.out, exist_ok=True)
    import triton
    log(f"triton {triton.__version__}")
    describe_api()
    results = {}
    capture_cases(list(cases.values()), results)
    capture_cases(extra_cases(), results)
    measured = []
    if not args.no_kernels:
        measured, written = run_kernels(args.out)
        more = {}
        for path in written:
            add_file_cases(more, path, "kernel: " + os.path.basename(path))
        capture_cases(list(more.values()), results)
    write_json(os.path.join(args.out, "layouts.json"), triton.__version__, "cases", case_list(results))
    write_json(os.path.join(args.out, "measured.json"), triton.__version__, "kernels", measured)
    log(f"{len(results)} cases, {len(measured)} measured tensors")
    with open(os.path.join(args.out, "log.txt"), "w") as f:
        f.write("\n".join(LOG_LINES) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
