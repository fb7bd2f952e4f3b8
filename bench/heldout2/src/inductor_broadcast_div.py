"""A 3D tensor divided by a broadcast row."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, *args):
        return args[0] / args[1]


def get_inputs():
    return [torch.randn(4, 8, 32), torch.rand(32) + 0.5]


def get_init_inputs():
    return []
