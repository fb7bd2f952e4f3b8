"""pow by 3 and sqrt of the absolute value."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.pow(x, 3) + torch.sqrt(torch.abs(x))


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
