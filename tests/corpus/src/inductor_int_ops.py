"""Integer pointwise on int32: floor division by 3 plus a bitwise and."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.div(x, 3, rounding_mode="floor") + (x & 7)


def get_inputs():
    return [torch.randint(-1000, 1000, (16, 64), dtype=torch.int32)]


def get_init_inputs():
    return []
