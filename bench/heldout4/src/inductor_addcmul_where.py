"""addcmul under a mask (where on a comparison of two tensors)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y, z):
        return torch.where(x > y, torch.addcmul(x, y, z, value=0.5), z)


def get_inputs():
    return [torch.randn(256), torch.randn(256), torch.randn(256)]


def get_init_inputs():
    return []
