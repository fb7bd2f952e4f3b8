"""A row reversed (descending indices in the load)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.flip(x, dims=[1]) * 2.0


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
