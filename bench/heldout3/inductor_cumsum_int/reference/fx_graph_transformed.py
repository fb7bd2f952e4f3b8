class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "i32[8, 64]"):
        # File: /work/main/bench/heldout3/src/inductor_cumsum_int.py:8 in forward, code: return torch.cumsum(x, dim=1)
        cumsum: "i64[8, 64]" = torch.ops.aten.cumsum.default(arg0_1, 1);  arg0_1 = None
        return (cumsum,)
