"""A bf16 sum along rows of 64 (accumulated in f32)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=1)


def get_inputs():
    return [torch.randn(8, 64, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
