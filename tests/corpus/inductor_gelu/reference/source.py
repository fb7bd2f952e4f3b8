"""Exact GELU (the erf form): 0.5 * x * (1 + erf(x / sqrt(2)))."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
