"""Pointwise chain: relu((x + y) * 2). Inductor fuses it into one pointwise kernel."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.relu((x + y) * 2.0)


def get_inputs():
    return [torch.randn(16, 64), torch.randn(16, 64)]


def get_init_inputs():
    return []
