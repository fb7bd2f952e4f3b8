class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 512]"):
        # File: /work/main/bench/heldout3/src/inductor_cumsum_wide.py:8 in forward, code: return torch.cumsum(x, dim=1)
        cumsum: "f32[4, 512]" = torch.ops.aten.cumsum.default(arg0_1, 1);  arg0_1 = None
        return (cumsum,)
