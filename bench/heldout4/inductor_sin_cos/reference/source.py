"""Sine plus cosine, pointwise (libdevice sinf and cosf)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.sin(x) + torch.cos(x)


def get_inputs():
    return [torch.randn(256)]


def get_init_inputs():
    return []
