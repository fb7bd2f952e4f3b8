"""Minimum over the first dimension (a reduction across rows)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.amin(x, dim=0)


def get_inputs():
    return [torch.randn(64, 32)]


def get_init_inputs():
    return []
