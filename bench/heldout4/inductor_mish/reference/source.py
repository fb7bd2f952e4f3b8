"""mish: x * tanh(softplus(x))."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.mish(x)


def get_inputs():
    return [torch.randn(256)]


def get_init_inputs():
    return []
