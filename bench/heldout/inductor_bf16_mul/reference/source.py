"""bf16 multiply-add."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a * b + a


def get_inputs():
    return [torch.randn(1024, dtype=torch.bfloat16), torch.randn(1024, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
