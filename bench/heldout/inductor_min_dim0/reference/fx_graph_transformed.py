class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[64, 32]"):
        # File: /work/main/bench/heldout/src/inductor_min_dim0.py:8 in forward, code: return torch.amin(x, dim=0)
        amin: "f32[32]" = torch.ops.aten.amin.default(arg0_1, [0]);  arg0_1 = None
        return (amin,)
