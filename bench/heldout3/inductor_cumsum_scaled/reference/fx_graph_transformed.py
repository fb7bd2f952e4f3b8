class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[32, 128]"):
        # File: /work/main/bench/heldout3/src/inductor_cumsum_scaled.py:8 in forward, code: return torch.cumsum(x * 0.5 + 1.0, dim=1)
        mul: "f32[32, 128]" = torch.ops.aten.mul.Tensor(arg0_1, 0.5);  arg0_1 = None
        add: "f32[32, 128]" = torch.ops.aten.add.Tensor(mul, 1.0);  mul = None
        cumsum: "f32[32, 128]" = torch.ops.aten.cumsum.default(add, 1);  add = None
        return (cumsum,)
