"""Linear interpolation with a tensor weight."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y, w):
        return torch.lerp(x, y, w)


def get_inputs():
    return [torch.randn(256), torch.randn(256), torch.rand(256)]


def get_init_inputs():
    return []
