"""Row softmax computed as exp(x) / sum(exp(x)) without subtracting the row
maximum: equal over the reals, but exp overflows to inf in f32 for inputs above
about 88.7, where the reference stays finite."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_nomax_kernel(out_ptr, x_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x)
    p = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * row_stride + cols, p, mask=mask)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        softmax_nomax_kernel[(n_rows,)](out, x, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
        return out


def get_inputs():
    return [torch.randn(16, 128)]


def get_init_inputs():
    return []
