class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[1024]"):
        # File: /work/main/bench/heldout/src/inductor_pow_sqrt.py:8 in forward, code: return torch.pow(x, 3) + torch.sqrt(torch.abs(x))
        pow_1: "f32[1024]" = torch.ops.aten.pow.Tensor_Scalar(arg0_1, 3)
        abs_1: "f32[1024]" = torch.ops.aten.abs.default(arg0_1);  arg0_1 = None
        sqrt: "f32[1024]" = torch.ops.aten.sqrt.default(abs_1);  abs_1 = None
        add: "f32[1024]" = torch.ops.aten.add.Tensor(pow_1, sqrt);  pow_1 = sqrt = None
        return (add,)
