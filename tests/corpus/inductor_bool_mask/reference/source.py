"""A bool mask in and a bool comparison out: where(mask, 2x, 0) and x > 0.5."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, mask):
        return torch.where(mask, x * 2.0, torch.zeros_like(x)), x > 0.5


def get_inputs():
    return [torch.randn(16, 64), torch.rand(16, 64) < 0.5]


def get_init_inputs():
    return []
