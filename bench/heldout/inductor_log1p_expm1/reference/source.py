"""log1p and expm1 (libdevice functions)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.log1p(torch.abs(x)) + torch.expm1(x * 0.5)


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
