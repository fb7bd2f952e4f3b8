class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[256]", arg1_1: "f32[256]", arg2_1: "f32[256]"):
        # File: /work/main/bench/heldout4/src/inductor_addcmul_where.py:8 in forward, code: return torch.where(x > y, torch.addcmul(x, y, z, value=0.5), z)
        gt: "b8[256]" = torch.ops.aten.gt.Tensor(arg0_1, arg1_1)
        mul: "f32[256]" = torch.ops.aten.mul.Tensor(arg1_1, 0.5);  arg1_1 = None
        mul_1: "f32[256]" = torch.ops.aten.mul.Tensor(mul, arg2_1);  mul = None
        add: "f32[256]" = torch.ops.aten.add.Tensor(arg0_1, mul_1);  arg0_1 = mul_1 = None
        where: "f32[256]" = torch.ops.aten.where.self(gt, add, arg2_1);  gt = add = arg2_1 = None
        return (where,)
