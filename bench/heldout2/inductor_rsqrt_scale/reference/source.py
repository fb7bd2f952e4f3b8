"""Each row scaled by the reciprocal square root of its sum of squares."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, *args):
        return args[0] * torch.rsqrt((args[0] * args[0]).sum(-1, keepdim=True) + 1e-6)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
