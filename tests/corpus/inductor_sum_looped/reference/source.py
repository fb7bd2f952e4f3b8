"""Sum over a long last dimension: inductor emits a looped reduction."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=-1)


def get_inputs():
    return [torch.randn(4, 8192)]


def get_init_inputs():
    return []
