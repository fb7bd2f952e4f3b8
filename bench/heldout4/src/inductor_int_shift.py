"""Integer shifts and xor on int32."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return (x << 3) ^ (y >> 2)


def get_inputs():
    return [torch.randint(-1000, 1000, (256,), dtype=torch.int32), torch.randint(-1000, 1000, (256,), dtype=torch.int32)]


def get_init_inputs():
    return []
