"""Clamp to [-0.5, 0.5]."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, min_val: float, max_val: float):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x):
        return torch.clamp(x, self.min_val, self.max_val)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return [-0.5, 0.5]
