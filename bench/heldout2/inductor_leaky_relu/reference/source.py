"""Leaky ReLU with slope 0.1."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, *args):
        return F.leaky_relu(args[0], 0.1)


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
