"""Half precision pointwise with one rounding: x + y on f16 inputs, f16 result.
Eager adds in f32 and rounds once to f16; inductor does the same."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + y


def get_inputs():
    return [torch.randn(16, 64).to(torch.float16), torch.randn(16, 64).to(torch.float16)]


def get_init_inputs():
    return []
