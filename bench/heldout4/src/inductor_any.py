"""Whether any element of a row is positive (a boolean reduction)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return (x > 1.5).any(dim=1)


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
