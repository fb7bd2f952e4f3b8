"""nan_to_num with explicit replacements."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, *args):
        return torch.nan_to_num(args[0] * 1e30, nan=0.0, posinf=1.0, neginf=-1.0)


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
