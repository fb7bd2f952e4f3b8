"""ELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, *args):
        return F.elu(args[0])


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
