"""HardSigmoid computed as clamp(x * 0.16666666666666666 + 0.5, 0, 1) instead of
relu6(x + 3) / 6: the same function over the reals, equal in f32 only within
tolerance."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def hardsigmoid_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * 0.16666666666666666 + 0.5
    y = tl.minimum(tl.maximum(y, 0.0), 1.0)
    tl.store(out_ptr + offs, y, mask=mask)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.hardsigmoid(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 256
        hardsigmoid_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
        return out


def get_inputs():
    return [torch.randn(16, 64) * 4.0]


def get_init_inputs():
    return []
