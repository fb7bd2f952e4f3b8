"""Integer remainder and bitwise operations."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, *args):
        return (args[0] % 7) ^ (args[0] >> 2)


def get_inputs():
    return [torch.randint(-1000, 1000, (1024,), dtype=torch.int32)]


def get_init_inputs():
    return []
