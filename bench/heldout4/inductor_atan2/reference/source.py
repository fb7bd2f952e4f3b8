"""atan2 of two tensors, pointwise (libdevice atan2f)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, y, x):
        return torch.atan2(y, x)


def get_inputs():
    return [torch.randn(256), torch.randn(256)]


def get_init_inputs():
    return []
