"""Embedding lookup (indirect loads by an index tensor)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(64, 32)

    def forward(self, idx):
        return self.emb(idx) * 2.0


def get_inputs():
    return [torch.randint(0, 64, (16,))]


def get_init_inputs():
    return []
