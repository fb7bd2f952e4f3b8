"""abs, floor and sign of a tensor, summed."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.abs(x) + torch.floor(x) + torch.sign(x)


def get_inputs():
    return [torch.randn(1024) * 4]


def get_init_inputs():
    return []
