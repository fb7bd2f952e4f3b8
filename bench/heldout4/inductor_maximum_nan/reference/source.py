"""Elementwise maximum of two tensors (NaN-propagating)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.maximum(x, y) - torch.minimum(x, y)


def get_inputs():
    return [torch.randn(256), torch.randn(256)]


def get_init_inputs():
    return []
