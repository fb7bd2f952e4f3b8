"""Softplus with its threshold."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.softplus(x, beta=1.0, threshold=20.0)


def get_inputs():
    return [torch.randn(1024) * 10]


def get_init_inputs():
    return []
