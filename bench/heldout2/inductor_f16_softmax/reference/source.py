"""Softmax of an f16 tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, *args):
        return torch.softmax(args[0], dim=-1)


def get_inputs():
    return [torch.randn(16, 128, dtype=torch.float16)]


def get_init_inputs():
    return []
