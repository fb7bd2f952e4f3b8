#!/usr/bin/env python3
"""Captures test vectors for stagecheck's aten semantics table.

Runs every op of the table (frontends/fx/Aten*.cpp) on small CUDA tensors,
edge cases included (+-0, +-inf, NaN, subnormals, extremes, empty and size-1
dimensions), and writes, per case, the inputs, torch's eager outputs and,
where torch._decomp has a decomposition of the op, the outputs of that
decomposition run eagerly. tests/frontends/fx/VectorTest.cpp lifts the same
call through the table and must reproduce them.

usage: capture_aten_vectors.py OUTDIR        (needs torch and a CUDA device)

Each output file is JSON:
  {"format": "stagecheck-aten-vectors", "version": 1, "torch": ..., "device": ...,
   "cases": [{"id": ..., "call": "torch.ops.aten.add.Tensor(a, b, alpha = 2)",
              "inputs": {"a": TENSOR, ...}, "tuple": false,
              "eager": [TENSOR...] | null, "eager_error": "...",
              "decomposed": [TENSOR...] | null,
              "reassociates": false}]}
  TENSOR = {"dtype": "f32", "shape": [3, 4], "hex": little-endian element bytes}
"""
import json
import math
import os
import sys

import torch

DEVICE = "cuda"
ABBR = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
        torch.float64: "f64", torch.int64: "i64", torch.int32: "i32",
        torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8", torch.bool: "b8"}
DTYPES = {v: k for k, v in ABBR.items()}
BITS_VIEW = {torch.float32: torch.int32, torch.float16: torch.int16,
             torch.bfloat16: torch.int16, torch.float64: torch.int64}

GEN = torch.Generator().manual_seed(20251130)


def float_edges(dt):
    fi = torch.finfo(dt)
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, math.inf, -math.inf, math.nan,
            fi.smallest_normal / 4, -fi.smallest_normal / 4, fi.max, -fi.max,
            fi.smallest_normal, 3.0, -3.0, 6.0, 20.0, 88.75, -100.0, 1e-3, 2.0]


def int_edges(dt):
    ii = torch.iinfo(dt)
    return [0, 1, -1, 7, -7, 3, -3, ii.max, ii.min, 100, -100, 2]


def make(dt, shape, kind="edge"):
    """A CPU tensor of dtype dt and shape; 'edge' puts the edge values first."""
    dt = DTYPES[dt] if isinstance(dt, str) else dt
    n = 1
    for s in shape:
        n *= s
    if dt == torch.bool:
        return (torch.rand(shape, generator=GEN) < 0.5)
    if dt.is_floating_point:
        if kind == "positive":
            v = torch.rand(n, generator=GEN, dtype=torch.float64) * 4 + 0.05
        elif kind == "unit":
            v = torch.rand(n, generator=GEN, dtype=torch.float64) * 1.8 - 0.9
        elif kind == "small":
            v = torch.randn(n, generator=GEN, dtype=torch.float64) * 0.5
        else:
            v = torch.randn(n, generator=GEN, dtype=torch.float64) * 3
        if kind == "edge":
            e = torch.tensor(float_edges(dt), dtype=torch.float64)[:n]
            v[:len(e)] = e
        return v.to(dt).reshape(shape)
    ii = torch.iinfo(dt)
    if kind.startswith("index:"):
        c = int(kind.split(":")[1])
        return torch.randint(0, c, (n,), generator=GEN).to(dt).reshape(shape)
    lo, hi = max(ii.min, -1000), min(ii.max, 1000)
    v = torch.randint(lo, hi + 1, (n,), generator=GEN)
    if kind == "nonzero":
        v = torch.where(v == 0, torch.ones_like(v), v)
    if kind == "edge":
        e = [x for x in int_edges(dt) if ii.min <= x <= ii.max][:n]
        v[:len(e)] = torch.tensor(e)
    return v.to(dt).reshape(shape)


def encode(t):
    t = t.detach().cpu().contiguous()
    raw = t.view(BITS_VIEW[t.dtype]) if t.dtype in BITS_VIEW else t
    if t.dtype == torch.bool:
        raw = t.to(torch.uint8)
    try:
        data = bytes(raw.clone().untyped_storage().tolist())
    except AttributeError:  # torch before 2.0
        data = raw.numpy().tobytes()
    return {"dtype": ABBR[t.dtype], "shape": list(t.shape), "hex": data.hex()}


def literal(v):
    """A Python value as FX prints it in a call."""
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, float):
        if math.isinf(v):
            return "float('inf')" if v > 0 else "-float('inf')"
        if math.isnan(v):
            return "float('nan')"
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(literal(x) for x in v) + "]"
    if isinstance(v, torch.dtype):
        return "torch." + str(v).split(".")[1]
    if isinstance(v, Name):
        return v.name
    return repr(v)


class Name:
    def __init__(self, name):
        self.name = name


CASES = []


def case(overload, args, kwargs=None, inputs=None, reassociates=False,
         family="pointwise"):
    """args: positional arguments, input names as strings prefixed by '%'."""
    kwargs = kwargs or {}
    inputs = inputs or {}

    def lit(x):
        if isinstance(x, str) and x.startswith("%"):
            return Name(x[1:])
        if isinstance(x, list) and x and isinstance(x[0], str) and x[0].startswith("%"):
            return [Name(y[1:]) for y in x]
        return x
    a = [lit(x) for x in args]
    k = {n: lit(x) for n, x in kwargs.items()}
    text = "torch.ops." + overload + "(" + ", ".join(
        [literal(x) for x in a] + [f"{n} = {literal(x)}" for n, x in k.items()]) + ")"
    CASES.append({"overload": overload, "args": a, "kwargs": k, "inputs": inputs,
                  "call": text, "reassociates": reassociates, "family": family})


def unary_float(op, dts=("f32", "f16", "bf16"), kind="edge", shape=(22,), **kw):
    for dt in dts:
        case(op, ["%a"], kw, {"a": make(dt, shape, kind)})


def binary(op, dts=("f32",), kinds=("edge", "normal"), extra=None, **kw):
    for dt in dts:
        case(op, ["%a", "%b"], dict(extra or {}),
             {"a": make(dt, (4, 6), kinds[0]), "b": make(dt, (4, 6), kinds[1])})


def build_cases():
    # -- arithmetic ---------------------------------------------------------
    for dt in ("f32", "f16", "bf16", "f64", "i32", "i64", "u8", "b8"):
        case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make(dt, (4, 6)), "b": make(dt, (4, 6), "normal")})
    case("aten.add.Tensor", ["%a", "%b"], {"alpha": 2}, {"a": make("f32", (3, 4)), "b": make("f32", (3, 4), "normal")})
    case("aten.add.Tensor", ["%a", "%b"], {"alpha": 0.3}, {"a": make("f16", (3, 4), "normal"), "b": make("f16", (3, 4), "normal")})
    case("aten.add.Tensor", ["%a", 1], {}, {"a": make("f32", (22,))})
    case("aten.add.Tensor", ["%a", 0.1], {}, {"a": make("f16", (22,))})
    case("aten.add.Tensor", ["%a", 2.5], {}, {"a": make("i32", (12,))})
    case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make("f32", (3, 1)), "b": make("f32", (4,), "normal")})
    case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make("f16", (3, 4)), "b": make("f32", (4,), "normal")})
    case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make("f16", (3, 4)), "b": make("f32", (), "normal")})
    case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make("i32", (3, 4)), "b": make("f32", (), "normal")})
    case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make("u8", (6,)), "b": make("i8", (6,))})
    case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make("f32", (0, 3)), "b": make("f32", (3,))})
    case("aten.add.Tensor", ["%a", "%b"], {}, {"a": make("f32", (1,)), "b": make("f32", (1, 1))})
    for dt in ("f32", "f16", "i32", "i64"):
        case("aten.sub.Tensor", ["%a", "%b"], {}, {"a": make(dt, (4, 6)), "b": make(dt, (4, 6), "normal")})
    case("aten.sub.Tensor", ["%a", "%b"], {"alpha": 3}, {"a": make("f32", (4,)), "b": make("f32", (4,), "normal")})
    case("aten.rsub.Scalar", ["%a", 1.0], {}, {"a": make("f32", (22,))})
    case("aten.rsub.Tensor", ["%a", "%b"], {}, {"a": make("f32", (22,)), "b": make("f32", (22,), "normal")})
    for dt in ("f32", "f16", "bf16", "i32", "i16", "b8"):
        case("aten.mul.Tensor", ["%a", "%b"], {}, {"a": make(dt, (4, 6)), "b": make(dt, (4, 6), "normal")})
    case("aten.mul.Tensor", ["%a", 0.7071067811865476], {}, {"a": make("f32", (22,))})
    case("aten.mul.Tensor", ["%a", 0.16666666666666666], {}, {"a": make("f16", (22,))})
    case("aten.mul.Tensor", ["%a", 3], {}, {"a": make("i32", (12,))})
    for dt in ("f32", "f16", "bf16", "i32"):
        case("aten.div.Tensor", ["%a", "%b"], {}, {"a": make(dt, (4, 6)), "b": make(dt, (4, 6), "normal" if dt[0] != "i" else "nonzero")})
    case("aten.div.Tensor", ["%a", 6], {}, {"a": make("f32", (22,))})
    for mode in ("trunc", "floor"):
        for dt in ("f32", "f16", "i32", "i64", "i8"):
            case("aten.div.Tensor_mode", ["%a", "%b"], {"rounding_mode": mode},
                 {"a": make(dt, (4, 6)), "b": make(dt, (4, 6), "nonzero" if dt[0] == "i" else "normal")})
        case("aten.div.Tensor_mode", ["%a", 3], {"rounding_mode": mode}, {"a": make("i32", (12,))})
    case("aten.floor_divide.default", ["%a", "%b"], {}, {"a": make("i32", (12,)), "b": make("i32", (12,), "nonzero")})
    for dt in ("f32", "i32", "i64"):
        case("aten.remainder.Tensor", ["%a", "%b"], {}, {"a": make(dt, (4, 6)), "b": make(dt, (4, 6), "nonzero" if dt[0] == "i" else "normal")})
        case("aten.fmod.Tensor", ["%a", "%b"], {}, {"a": make(dt, (4, 6)), "b": make(dt, (4, 6), "nonzero" if dt[0] == "i" else "normal")})
    case("aten.remainder.Scalar", ["%a", 3], {}, {"a": make("i32", (12,))})
    for dt in ("f32", "f16", "i32", "i64"):
        case("aten.neg.default", ["%a"], {}, {"a": make(dt, (22,))})
        case("aten.abs.default", ["%a"], {}, {"a": make(dt, (22,))})
        case("aten.sign.default", ["%a"], {}, {"a": make(dt, (22,))})
    for dt in ("f32", "f16", "bf16"):
        case("aten.reciprocal.default", ["%a"], {}, {"a": make(dt, (22,))})
        case("aten.sqrt.default", ["%a"], {}, {"a": make(dt, (22,))})
    case("aten.sqrt.default", ["%a"], {}, {"a": make("i32", (12,))})
    for op in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
               "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
               "acosh", "atanh", "erf", "erfc", "rsqrt", "sigmoid"):
        unary_float(f"aten.{op}.default", dts=("f32", "f16"))
        unary_float(f"aten.{op}.default", dts=("f32",), kind="unit", shape=(16,))
    case("aten.exp.default", ["%a"], {}, {"a": make("i32", (12,))})
    case("aten.atan2.default", ["%a", "%b"], {}, {"a": make("f32", (4, 6)), "b": make("f32", (4, 6), "normal")})
    for e in (2, 3, 0.5, -0.5, -1, -2, 1.7, 2.0):
        case("aten.pow.Tensor_Scalar", ["%a", e], {}, {"a": make("f32", (22,))})
    case("aten.pow.Tensor_Scalar", ["%a", 2], {}, {"a": make("f16", (22,))})
    case("aten.pow.Tensor_Scalar", ["%a", 3], {}, {"a": make("i32", (12,), "normal")})
    case("aten.pow.Tensor_Tensor", ["%a", "%b"], {}, {"a": make("f32", (4, 6), "positive"), "b": make("f32", (4, 6), "normal")})
    case("aten.pow.Scalar", [2.0, "%a"], {}, {"a": make("f32", (22,))})
    for op in ("floor", "ceil", "round", "trunc"):
        for dt in ("f32", "f16"):
            case(f"aten.{op}.default", ["%a"], {}, {"a": make(dt, (22,))})
        case(f"aten.{op}.default", ["%a"], {}, {"a": make("f32", (16,), "small")})
    case("aten.round.default", ["%a"], {}, {"a": torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999998])})
    # -- comparisons, logic, where -----------------------------------------
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        for dt in ("f32", "f16", "i32", "u8", "b8"):
            case(f"aten.{op}.Tensor", ["%a", "%b"], {}, {"a": make(dt, (22,)), "b": make(dt, (22,))[torch.randperm(22, generator=GEN)]})
        case(f"aten.{op}.Scalar", ["%a", 0], {}, {"a": make("f32", (22,))})
        case(f"aten.{op}.Scalar", ["%a", 2.5], {}, {"a": make("i32", (12,))})
    for op in ("isnan", "isinf", "isfinite"):
        case(f"aten.{op}.default", ["%a"], {}, {"a": make("f32", (22,))})
        case(f"aten.{op}.default", ["%a"], {}, {"a": make("i32", (12,))})
    for op in ("logical_and", "logical_or", "logical_xor"):
        case(f"aten.{op}.default", ["%a", "%b"], {}, {"a": make("f32", (22,)), "b": make("i32", (22,), "normal")})
        case(f"aten.{op}.default", ["%a", "%b"], {}, {"a": make("b8", (22,)), "b": make("b8", (22,))})
    case("aten.logical_not.default", ["%a"], {}, {"a": make("f32", (22,))})
    for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        for dt in ("i32", "i64", "u8", "b8"):
            case(f"aten.{op}.Tensor", ["%a", "%b"], {}, {"a": make(dt, (12,)), "b": make(dt, (12,), "normal")})
        case(f"aten.{op}.Scalar", ["%a", 7], {}, {"a": make("i32", (12,))})
    case("aten.bitwise_not.default", ["%a"], {}, {"a": make("i32", (12,))})
    case("aten.bitwise_not.default", ["%a"], {}, {"a": make("b8", (12,))})
    # Shifts, by amounts in range, at the width, past it and negative; fixed
    # values (not drawn), so the cases after them draw what they drew before.
    values = [1, -1, 5, -5, 123456, -123456, 2**30, -2**31 + 1, 7, -7, 255, 0]
    amounts = [0, 1, 2, 7, 8, 15, 31, 32, 33, 63, 64, -1]
    for op in ("__rshift__", "__lshift__", "bitwise_right_shift", "bitwise_left_shift"):
        for dt in ("i32", "i64", "u8"):
            a = torch.tensor([v % 256 if dt == "u8" else v for v in values], dtype=DTYPES[dt])
            b = torch.tensor([k % 256 if dt == "u8" else k for k in amounts], dtype=DTYPES[dt])
            case(f"aten.{op}.Tensor", ["%a", "%b"], {}, {"a": a, "b": b})
        a = torch.tensor(values, dtype=torch.int32)
        scalar = "Scalar" if op.startswith("__") else "Tensor_Scalar"
        for k in (2, 31, 40):
            case(f"aten.{op}.{scalar}", ["%a", k], {}, {"a": a})
    case("aten.where.self", ["%c", "%a", "%b"], {}, {"c": make("b8", (4, 6)), "a": make("f32", (4, 6)), "b": make("f32", (6,), "normal")})
    case("aten.where.self", ["%c", "%a", "%b"], {}, {"c": make("b8", (4, 1)), "a": make("f16", (4, 6)), "b": make("f32", (4, 6), "normal")})
    case("aten.where.ScalarOther", ["%c", "%a", 0.0], {}, {"c": make("b8", (22,)), "a": make("f32", (22,))})
    case("aten.where.ScalarSelf", ["%c", -1.5, "%a"], {}, {"c": make("b8", (22,)), "a": make("f16", (22,))})
    case("aten.masked_fill.Scalar", ["%a", "%c", -math.inf], {}, {"a": make("f32", (4, 6)), "c": make("b8", (4, 6))})
    case("aten.masked_fill.Scalar", ["%a", "%c", 3], {}, {"a": make("i32", (4, 6)), "c": make("b8", (6,))})
    # -- min, max, clamp ---------------------------------------------------
    for op in ("maximum", "minimum", "fmax", "fmin"):
        for dt in ("f32", "f16", "i32"):
            case(f"aten.{op}.default", ["%a", "%b"], {}, {"a": make(dt, (22,)), "b": make(dt, (22,))[torch.randperm(22, generator=GEN)]})
    case("aten.clamp.default", ["%a", -0.5, 0.5], {}, {"a": make("f32", (22,))})
    case("aten.clamp.default", ["%a", 0], {}, {"a": make("f32", (22,))})
    case("aten.clamp.default", ["%a", None, 6], {}, {"a": make("f16", (22,))})
    case("aten.clamp.default", ["%a", 2.0, -2.0], {}, {"a": make("f32", (22,))})
    case("aten.clamp.default", ["%a", -5, 5], {}, {"a": make("i32", (12,))})
    case("aten.clamp.default", ["%a", 0.5], {}, {"a": make("i32", (12,))})
    case("aten.clamp.Tensor", ["%a", "%b", "%c"], {}, {"a": make("f32", (22,)), "b": make("f32", (22,), "normal"), "c": make("f32", (22,), "normal")})
    case("aten.clamp_min.default", ["%a", 0], {}, {"a": make("f32", (22,))})
    case("aten.clamp_min.default", ["%a", -0.5], {}, {"a": make("bf16", (22,))})
    case("aten.clamp_max.default", ["%a", 0.5], {}, {"a": make("f32", (22,))})
    case("aten.clamp_max.default", ["%a", 6], {}, {"a": make("i64", (12,))})
    # -- activations ---------------------------------------------------------
    for op in ("relu", "silu", "mish", "selu", "hardsigmoid", "hardswish", "relu6"):
        unary_float(f"aten.{op}.default")
        unary_float(f"aten.{op}.default", dts=("f32",), kind="normal", shape=(32,))
    unary_float("aten.gelu.default")
    unary_float("aten.gelu.default", dts=("f32",), kind="normal", shape=(32,))
    unary_float("aten.gelu.default", approximate="tanh")
    unary_float("aten.gelu.default", dts=("f32",), kind="normal", shape=(32,), approximate="tanh")
    unary_float("aten.softplus.default")
    case("aten.softplus.default", ["%a", 2.0, 5.0], {}, {"a": make("f32", (32,), "normal")})
    unary_float("aten.elu.default")
    case("aten.elu.default", ["%a", 0.7, 1.3, 0.9], {}, {"a": make("f32", (32,), "normal")})
    unary_float("aten.leaky_relu.default")
    case("aten.leaky_relu.default", ["%a", 0.2], {}, {"a": make("f32", (32,), "normal")})
    unary_float("aten.hardtanh.default")
    case("aten.hardtanh.default", ["%a", -0.5, 2.0], {}, {"a": make("f32", (32,), "normal")})
    case("aten.relu.default", ["%a"], {}, {"a": make("i32", (12,))})
    # -- casts and constants ------------------------------------------------
    for src in ("f32", "f16", "bf16", "f64", "i32", "i64", "u8", "i8", "b8"):
        for dst in ("f32", "f16", "bf16", "i32", "i64", "u8", "b8"):
            if src == dst:
                continue
            kind = "edge" if not (src[0] in "fb" and src != "b8" and dst[0] in "iu") else "small"
            case("prims.convert_element_type.default", ["%a", DTYPES[dst]], {}, {"a": make(src, (22,) if src[0] == "f" or src == "bf16" else (12,), kind)})
    case("aten._to_copy.default", ["%a"], {"dtype": torch.float16}, {"a": make("f32", (22,))})
    case("aten.clone.default", ["%a"], {}, {"a": make("f32", (3, 4))})
    case("aten.full.default", [[2, 3], 1.5], {"dtype": torch.float32, "device": Name("device(type='cuda', index=0)"), "pin_memory": False}, {})
    case("aten.full.default", [[4], 7], {"dtype": torch.int32, "device": Name("device(type='cuda')"), "pin_memory": False}, {})
    case("aten.full_like.default", ["%a", 0.1], {}, {"a": make("f16", (3, 4))})
    case("aten.zeros_like.default", ["%a"], {}, {"a": make("f32", (3,))})
    case("aten.ones_like.default", ["%a"], {"dtype": torch.int64}, {"a": make("f32", (3,))})
    case("aten.scalar_tensor.default", [0.1], {"dtype": torch.float32, "device": Name("device(type='cuda')")}, {})
    # -- reductions ----------------------------------------------------------
    R = dict(family="reduce")
    for dt in ("f32", "f16", "bf16"):
        case("aten.sum.dim_IntList", ["%a", [-1]], {}, {"a": make(dt, (4, 16), "normal")}, reassociates=True, **R)
        case("aten.mean.dim", ["%a", [-1], True], {}, {"a": make(dt, (4, 16), "normal")}, reassociates=True, **R)
    case("aten.sum.dim_IntList", ["%a", [0, 2]], {}, {"a": make("f32", (3, 4, 5), "normal")}, reassociates=True, **R)
    case("aten.sum.dim_IntList", ["%a", [1]], {}, {"a": make("f32", (3, 0), "normal")}, **R)
    case("aten.sum.dim_IntList", ["%a", [1]], {}, {"a": torch.tensor([[1.0, math.inf, 2.0], [math.nan, 1.0, 2.0], [-math.inf, math.inf, 1.0], [-0.0, -0.0, -0.0]])}, reassociates=True, **R)
    case("aten.sum.dim_IntList", ["%a", []], {}, {"a": make("f32", (3, 4), "normal")}, reassociates=True, **R)
    case("aten.sum.default", ["%a"], {}, {"a": make("i32", (3, 4), "normal")}, **R)
    case("aten.sum.default", ["%a"], {}, {"a": make("b8", (3, 4))}, **R)
    case("aten.sum.dim_IntList", ["%a", [1]], {"dtype": torch.float32}, {"a": make("f16", (3, 8), "normal")}, reassociates=True, **R)
    case("aten.mean.default", ["%a"], {}, {"a": make("f32", (5, 7), "normal")}, reassociates=True, **R)
    case("aten.mean.dim", ["%a", [0]], {}, {"a": make("f32", (6, 3), "normal")}, reassociates=True, **R)
    case("aten.prod.dim_int", ["%a", 1], {}, {"a": make("f32", (3, 5), "small")}, reassociates=True, **R)
    case("aten.prod.default", ["%a"], {}, {"a": make("i32", (6,), "normal")}, **R)
    for dt in ("f32", "f16", "i32"):
        case("aten.amax.default", ["%a", [-1]], {}, {"a": make(dt, (4, 8), "normal")}, **R)
        case("aten.amin.default", ["%a", [0], True], {}, {"a": make(dt, (4, 8), "normal")}, **R)
    case("aten.amax.default", ["%a", [-1]], {}, {"a": torch.tensor([[1.0, math.nan, 3.0], [-math.inf, -1.0, -2.0], [math.inf, 0.5, math.nan]])}, **R)
    case("aten.amax.default", ["%a", [0, 1]], {}, {"a": make("f32", (3, 5), "normal")}, **R)
    for op in ("max", "min"):
        case(f"aten.{op}.dim", ["%a", 1], {}, {"a": make("f32", (4, 8), "normal")}, **R)
        case(f"aten.{op}.dim", ["%a", 0, True], {}, {"a": make("i32", (4, 8), "normal")}, **R)
        case(f"aten.{op}.dim", ["%a", 1], {}, {"a": torch.tensor([[1.0, 3.0, 3.0, 2.0], [1.0, math.nan, 5.0, math.nan]])}, **R)
        case(f"aten.{op}.default", ["%a"], {}, {"a": make("f32", (3, 5), "normal")}, **R)
        case(f"aten.{op}.other", ["%a", "%b"], {}, {"a": make("f32", (22,)), "b": make("f32", (22,), "normal")}, **R)
    for op in ("argmax", "argmin"):
        case(f"aten.{op}.default", ["%a", 1], {}, {"a": make("f32", (4, 8), "normal")}, **R)
        case(f"aten.{op}.default", ["%a"], {}, {"a": make("f32", (3, 5), "normal")}, **R)
        case(f"aten.{op}.default", ["%a", 0, True], {}, {"a": make("i32", (4, 8), "normal")}, **R)
        case(f"aten.{op}.default", ["%a", 1], {}, {"a": torch.tensor([[1.0, 3.0, 3.0, 2.0], [1.0, math.nan, 5.0, math.nan]])}, **R)
    for op in ("var", "std"):
        case(f"aten.{op}.correction", ["%a", [1]], {"correction": 0, "keepdim": True}, {"a": make("f32", (4, 16), "normal")}, reassociates=True, **R)
        case(f"aten.{op}.correction", ["%a", [1]], {}, {"a": make("f32", (4, 16), "normal")}, reassociates=True, **R)
        case(f"aten.{op}.correction", ["%a", None], {"correction": 2}, {"a": make("f32", (3, 5), "normal")}, reassociates=True, **R)
        case(f"aten.{op}.dim", ["%a", [0], False], {}, {"a": make("f32", (6, 3), "normal")}, reassociates=True, **R)
        case(f"aten.{op}_mean.correction", ["%a", [1]], {"correction": 0, "keepdim": True}, {"a": make("f16", (4, 16), "normal")}, reassociates=True, **R)
    case("aten.var.correction", ["%a", [1]], {"correction": 1}, {"a": make("f32", (3, 1), "normal")}, **R)
    case("aten.logsumexp.default", ["%a", [1]], {}, {"a": make("f32", (4, 16), "normal")}, reassociates=True, **R)
    case("aten.logsumexp.default", ["%a", [1], True], {}, {"a": torch.tensor([[1.0, 2.0], [-math.inf, -math.inf], [math.inf, 1.0]])}, reassociates=True, **R)
    for dt in ("f32", "f16", "bf16"):
        case("aten._softmax.default", ["%a", -1, False], {}, {"a": make(dt, (4, 16), "normal")}, reassociates=True, **R)
        case("aten._log_softmax.default", ["%a", 1, False], {}, {"a": make(dt, (4, 16), "normal")}, reassociates=True, **R)
    case("aten._softmax.default", ["%a", 0, False], {}, {"a": make("f32", (5, 3), "normal")}, reassociates=True, **R)
    case("aten._softmax.default", ["%a", -1, True], {}, {"a": make("f16", (2, 8), "normal")}, reassociates=True, **R)
    case("aten._softmax.default", ["%a", -1, False], {}, {"a": torch.tensor([[1.0, math.inf, 2.0], [-math.inf, -math.inf, -math.inf], [math.nan, 1.0, 2.0], [100.0, 200.0, 300.0]])}, reassociates=True, **R)
    case("prims.prepare_softmax_online.default", ["%a", -1], {}, {"a": make("f32", (4, 16), "normal")}, reassociates=True, **R)
    for op in ("cumsum", "cumprod"):
        case(f"aten.{op}.default", ["%a", 1], {}, {"a": make("f32", (3, 8), "small")}, reassociates=True, **R)
        case(f"aten.{op}.default", ["%a", 0], {}, {"a": make("i32", (5, 2), "normal")}, **R)
        case(f"aten.{op}.default", ["%a", -1], {"dtype": torch.float32}, {"a": make("f16", (2, 6), "small")}, reassociates=True, **R)
    # -- normalization -------------------------------------------------------
    for dt in ("f32", "f16"):
        case("aten.native_layer_norm.default", ["%a", [16], "%w", "%b", 1e-05], {},
             {"a": make(dt, (4, 16), "normal"), "w": make(dt, (16,), "normal"), "b": make(dt, (16,), "normal")}, reassociates=True, **R)
    case("aten.native_layer_norm.default", ["%a", [3, 4], None, None, 1e-05], {},
         {"a": make("f32", (2, 3, 4), "normal")}, reassociates=True, **R)
    case("aten._native_batch_norm_legit_no_training.default", ["%a", "%w", "%b", "%m", "%v", 0.1, 1e-05], {},
         {"a": make("f32", (2, 3, 4), "normal"), "w": make("f32", (3,), "normal"), "b": make("f32", (3,), "normal"),
          "m": make("f32", (3,), "normal"), "v": make("f32", (3,), "positive")}, **R)
    case("aten.native_batch_norm.default", ["%a", None, None, "%m", "%v", False, 0.1, 1e-05], {},
         {"a": make("f16", (2, 3, 2, 2), "normal"), "m": make("f16", (3,), "normal"), "v": make("f16", (3,), "positive")}, **R)
    case("aten.native_group_norm.default", ["%a", "%w", "%b", 2, 6, 4, 3, 1e-05], {},
         {"a": make("f32", (2, 6, 2, 2), "normal"), "w": make("f32", (6,), "normal"), "b": make("f32", (6,), "normal")}, reassociates=True, **R)
    # -- views and layout ------------------------------------------------------
    S = dict(family="shape")
    x = make("f32", (2, 3, 4), "normal")
    case("aten.view.default", ["%a", [6, 4]], {}, {"a": x}, **S)
    case("aten.view.default", ["%a", [4, -1]], {}, {"a": x}, **S)
    case("aten.view.default", ["%a", [2, 12, 1]], {}, {"a": x}, **S)
    case("aten._unsafe_view.default", ["%a", [24]], {}, {"a": x}, **S)
    case("aten.reshape.default", ["%a", [3, 8]], {}, {"a": x}, **S)
    case("aten.permute.default", ["%a", [2, 0, 1]], {}, {"a": x}, **S)
    case("aten.transpose.int", ["%a", 0, -1], {}, {"a": x}, **S)
    case("aten.t.default", ["%a"], {}, {"a": make("f32", (3, 5), "normal")}, **S)
    case("aten.expand.default", ["%a", [2, 3, 4]], {}, {"a": make("f32", (3, 1), "normal")}, **S)
    case("aten.expand.default", ["%a", [-1, 5]], {}, {"a": make("f32", (3, 1), "normal")}, **S)
    case("aten.squeeze.dim", ["%a", 1], {}, {"a": make("f32", (3, 1, 2), "normal")}, **S)
    case("aten.squeeze.dims", ["%a", [0, 2]], {}, {"a": make("f32", (1, 3, 1), "normal")}, **S)
    case("aten.squeeze.default", ["%a"], {}, {"a": make("f32", (1, 3, 1, 2), "normal")}, **S)
    case("aten.unsqueeze.default", ["%a", -1], {}, {"a": x}, **S)
    case("aten.slice.Tensor", ["%a", 2, 1, 3], {}, {"a": x}, **S)
    case("aten.slice.Tensor", ["%a", 1, 0, 9223372036854775807, 2], {}, {"a": x}, **S)
    case("aten.slice.Tensor", ["%a", 0, -1], {}, {"a": x}, **S)
    case("aten.narrow.default", ["%a", 2, 1, 2], {}, {"a": x}, **S)
    case("aten.select.int", ["%a", 1, -1], {}, {"a": x}, **S)
    case("aten.cat.default", [["%a", "%b"], 1], {}, {"a": x, "b": make("f32", (2, 2, 4), "normal")}, **S)
    case("aten.cat.default", [["%a", "%b", "%c"]], {}, {"a": make("f16", (1, 3)), "b": make("f32", (2, 3)), "c": make("f32", (0,))}, **S)
    case("aten.stack.default", [["%a", "%b"], 1], {}, {"a": make("f32", (2, 3)), "b": make("f32", (2, 3))}, **S)
    case("aten.split.Tensor", ["%a", 3, 2], {}, {"a": x}, **S)
    case("aten.split_with_sizes.default", ["%a", [1, 2], 1], {}, {"a": x}, **S)
    case("aten.chunk.default", ["%a", 2, 1], {}, {"a": x}, **S)
    case("aten.unbind.int", ["%a", 0], {}, {"a": x}, **S)
    case("aten.constant_pad_nd.default", ["%a", [1, 2, 0, 1], 0.5], {}, {"a": make("f32", (2, 3), "normal")}, **S)
    case("aten.constant_pad_nd.default", ["%a", [-1, 1]], {}, {"a": make("f32", (2, 3), "normal")}, **S)
    case("aten.as_strided.default", ["%a", [3, 2], [1, 3], 1], {}, {"a": make("f32", (12,), "normal")}, **S)
    case("aten.alias.default", ["%a"], {}, {"a": x}, **S)
    # -- matrix products, convolution, pooling, losses ----------------------
    N = dict(family="nn")
    for dt in ("f32", "f16"):
        case("aten.mm.default", ["%a", "%b"], {}, {"a": make(dt, (4, 8), "normal"), "b": make(dt, (8, 3), "normal")}, reassociates=True, **N)
    case("aten.bmm.default", ["%a", "%b"], {}, {"a": make("f32", (2, 3, 5), "normal"), "b": make("f32", (2, 5, 4), "normal")}, reassociates=True, **N)
    case("aten.addmm.default", ["%c", "%a", "%b"], {}, {"c": make("f32", (3,), "normal"), "a": make("f32", (4, 8), "normal"), "b": make("f32", (8, 3), "normal")}, reassociates=True, **N)
    case("aten.addmm.default", ["%c", "%a", "%b"], {"beta": 0.5, "alpha": 2.0}, {"c": make("f32", (4, 3), "normal"), "a": make("f32", (4, 8), "normal"), "b": make("f32", (8, 3), "normal")}, reassociates=True, **N)
    case("aten.convolution.default", ["%a", "%w", "%b", [1, 1], [1, 1], [1, 1], False, [0, 0], 1], {},
         {"a": make("f32", (2, 3, 5, 5), "normal"), "w": make("f32", (4, 3, 3, 3), "normal"), "b": make("f32", (4,), "normal")}, reassociates=True, **N)
    case("aten.convolution.default", ["%a", "%w", None, [2], [0], [2], False, [0], 2], {},
         {"a": make("f32", (1, 4, 9), "normal"), "w": make("f32", (6, 2, 2), "normal")}, reassociates=True, **N)
    case("aten.avg_pool2d.default", ["%a", [2, 2], [2, 2]], {}, {"a": make("f32", (2, 3, 4, 4), "normal")}, reassociates=True, **N)
    case("aten.avg_pool2d.default", ["%a", [3, 3], [2, 2], [1, 1], True, False], {}, {"a": make("f32", (1, 2, 5, 6), "normal")}, reassociates=True, **N)
    case("aten.avg_pool2d.default", ["%a", [3, 3], [2, 2], [1, 1], False, True], {}, {"a": make("f32", (1, 2, 5, 6), "normal")}, reassociates=True, **N)
    case("aten.max_pool2d_with_indices.default", ["%a", [2, 2], [2, 2]], {}, {"a": make("f32", (2, 3, 4, 4), "normal")}, **N)
    case("aten.max_pool2d_with_indices.default", ["%a", [3, 3], [2, 2], [1, 1], [1, 1], True], {}, {"a": make("f32", (1, 2, 5, 6))}, **N)
    for red in (0, 1, 2):
        case("aten.mse_loss.default", ["%a", "%b", red], {}, {"a": make("f32", (4, 5), "normal"), "b": make("f32", (4, 5), "normal")}, reassociates=red != 0, **N)
        case("aten.l1_loss.default", ["%a", "%b", red], {}, {"a": make("f32", (4, 5), "normal"), "b": make("f32", (4, 5), "normal")}, reassociates=red != 0, **N)
        case("aten.smooth_l1_loss.default", ["%a", "%b", red, 0.5], {}, {"a": make("f32", (4, 5), "normal"), "b": make("f32", (4, 5), "normal")}, reassociates=red != 0, **N)
        case("aten.huber_loss.default", ["%a", "%b", red, 2.0], {}, {"a": make("f32", (4, 5), "normal"), "b": make("f32", (4, 5), "normal")}, reassociates=red != 0, **N)
        t = make("i64", (6,), "index:5")
        t[1] = -100
        case("aten.nll_loss_forward.default", ["%a", "%t", "%w", red, -100], {}, {"a": make("f32", (6, 5), "normal"), "t": t, "w": make("f32", (5,), "positive")}, reassociates=red != 0, **N)
        case("aten.nll_loss_forward.default", ["%a", "%t", None, red, 2], {}, {"a": make("f32", (6, 5), "normal"), "t": make("i64", (6,), "index:5")}, reassociates=red != 0, **N)
    # Embedding lookups (indices in range only: one outside asserts on the
    # device and ends the CUDA context for every case after it).
    case("aten.embedding.default", ["%w", "%i"], {}, {"w": make("f32", (6, 4)), "i": make("i64", (5,), "index:6")}, **N)
    case("aten.embedding.default", ["%w", "%i", 2], {}, {"w": make("f16", (6, 3)), "i": make("i64", (2, 3), "index:6")}, **N)
    case("aten.embedding.default", ["%w", "%i"], {}, {"w": make("f32", (4, 2), "normal"), "i": make("i32", (3, 1, 2), "index:4")}, **N)
    # Reversals (appended here so that every case above keeps its inputs).
    S = dict(family="shape")
    case("aten.flip.default", ["%a", [1]], {}, {"a": make("f32", (3, 4))}, **S)
    case("aten.flip.default", ["%a", [0, -1]], {}, {"a": make("i32", (2, 3, 2))}, **S)
    case("prims.rev.default", ["%a", [1]], {}, {"a": make("f32", (2, 5), "normal")}, **S)
    case("prims.rev.default", ["%a", [0, 2]], {}, {"a": make("f16", (2, 2, 3))}, **S)
    # Running extrema (appended for the same reason): ties and NaNs.
    R = dict(family="reduce")
    for op in ("cummax", "cummin"):
        case(f"aten.{op}.default", ["%a", 1], {}, {"a": make("f32", (4, 8), "normal")}, **R)
        case(f"aten.{op}.default", ["%a", 0], {}, {"a": make("i32", (5, 3), "normal")}, **R)
        case(f"aten.{op}.default", ["%a", -1], {}, {"a": torch.tensor([[1.0, 3.0, 3.0, 2.0, 5.0, 5.0], [1.0, math.nan, 5.0, math.nan, 2.0, 7.0], [-0.0, 0.0, -math.inf, math.inf, 0.0, -0.0]])}, **R)
        case(f"aten.{op}.default", ["%a", 0], {}, {"a": torch.tensor([[2, 2], [1, 3], [2, 3]], dtype=torch.int32)}, **R)
    # Gathers and iota (appended for the same reason; indices in range).
    N = dict(family="nn")
    case("aten.gather.default", ["%a", 1, "%i"], {}, {"a": make("f32", (3, 5)), "i": make("i64", (3, 4), "index:5")}, **N)
    case("aten.gather.default", ["%a", 0, "%i"], {}, {"a": make("f16", (4, 2), "normal"), "i": make("i64", (3, 2), "index:4")}, **N)
    case("aten.gather.default", ["%a", -1, "%i"], {}, {"a": make("i32", (2, 3, 4)), "i": make("i64", (2, 2, 6), "index:4")}, **N)
    case("prims.iota.default", [5], {"start": 0, "step": 1, "dtype": torch.int64, "device": Name("device(type='cuda', index=0)"), "requires_grad": False}, {})
    case("prims.iota.default", [4], {"start": -3, "step": 7, "dtype": torch.int32, "device": Name("device(type='cuda')"), "requires_grad": False}, {})
    # any and all (appended for the same reason): zeros of both signs, NaN
    # (nonzero), rows with no nonzero element, empty reductions, uint8.
    R = dict(family="reduce")
    zeros = torch.tensor([[0.0, -0.0, 0.0], [0.0, math.nan, -0.0], [1.0, 2.0, -3.0], [0.0, -0.0, 5.0]])
    for op in ("any", "all"):
        case(f"aten.{op}.dim", ["%a", 1], {}, {"a": zeros}, **R)
        case(f"aten.{op}.dim", ["%a", 0, True], {}, {"a": make("f32", (4, 8))}, **R)
        case(f"aten.{op}.dims", ["%a", [0]], {"keepdim": True}, {"a": make("b8", (3, 5))}, **R)
        case(f"aten.{op}.dims", ["%a", None], {}, {"a": make("i32", (3, 4))}, **R)
        case(f"aten.{op}.default", ["%a"], {}, {"a": make("b8", (2, 3))}, **R)
        case(f"aten.{op}.dim", ["%a", 1], {}, {"a": torch.tensor([[0, 0, 0], [0, 7, 0], [1, 2, 3]], dtype=torch.uint8)}, **R)
        case(f"aten.{op}.dim", ["%a", 1], {}, {"a": make("f32", (3, 0))}, **R)


def lookup(overload):
    obj = torch.ops
    for part in overload.split("."):
        obj = getattr(obj, part)
    return obj


def decomposition(op):
    try:
        from torch._decomp import decomposition_table
    except Exception:
        return None
    return decomposition_table.get(op)


def run_case(c, idx):
    inputs = {n: t.to(DEVICE) for n, t in c["inputs"].items()}

    def resolve(x):
        if isinstance(x, Name):
            if x.name.startswith("device("):
                return torch.device(DEVICE)
            return inputs[x.name]
        if isinstance(x, list):
            return [resolve(y) for y in x]
        return x
    args = [resolve(a) for a in c["args"]]
    kwargs = {n: resolve(v) for n, v in c["kwargs"].items()}
    out = {"id": f"{c['family']}:{idx}:{c['overload']}", "call": c["call"],
           "inputs": {n: encode(t) for n, t in c["inputs"].items()},
           "reassociates": c["reassociates"], "tuple": False}
    try:
        op = lookup(c["overload"])
    except Exception as e:
        out["eager"] = None
        out["decomposed"] = None
        out["eager_error"] = f"no such op: {e}"[:300]
        return out

    def flat(r):
        if isinstance(r, (tuple, list)):
            return [encode(t) for t in r], True
        return [encode(r)], False
    try:
        with torch.no_grad():
            r = op(*args, **kwargs)
        torch.cuda.synchronize()
        out["eager"], out["tuple"] = flat(r)
    except Exception as e:  # the op rejects these arguments: recorded as such
        out["eager"] = None
        out["eager_error"] = f"{type(e).__name__}: {e}"[:300]
    out["decomposed"] = None
    fn = decomposition(op)
    if fn is not None:
        try:
            with torch.no_grad():
                r = fn(*args, **kwargs)
            torch.cuda.synchronize()
            out["decomposed"], t = flat(r)
            out["tuple"] = out["tuple"] or t
        except Exception as e:
            out["decomposed_error"] = f"{type(e).__name__}: {e}"[:300]
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for module in ("torch._prims", "torch._decomp", "torch._inductor.inductor_prims"):
        try:
            __import__(module)
        except Exception as e:
            print(f"cannot import {module}: {e}")
    build_cases()
    files = {}
    for i, c in enumerate(CASES):
        try:
            files.setdefault(c["family"], []).append(run_case(c, i))
        except Exception as e:
            print(f"case {i} {c['call']}: {type(e).__name__}: {e}")
    head = {"format": "stagecheck-aten-vectors", "version": 1,
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0),
            "generator": "scripts/capture_aten_vectors.py"}
    for family, cases in files.items():
        with open(os.path.join(outdir, f"{family}.json"), "w") as f:
            json.dump(dict(head, cases=cases), f, separators=(",", ":"))
        errors = sum(1 for c in cases if c["eager"] is None)
        decomposed = sum(1 for c in cases if c["decomposed"] is not None)
        print(f"{family}: {len(cases)} cases, {errors} rejected by torch, "
              f"{decomposed} with a decomposition")


if __name__ == "__main__":
    main()
