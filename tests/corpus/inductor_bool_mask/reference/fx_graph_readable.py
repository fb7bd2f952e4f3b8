class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]", arg1_1: "b8[16, 64]"):
        # File: /tmp/src/inductor_bool_mask.py:8 in forward, code: return torch.where(mask, x * 2.0, torch.zeros_like(x)), x > 0.5
        mul: "f32[16, 64]" = torch.ops.aten.mul.Tensor(arg0_1, 2.0)
        full_default: "f32[16, 64]" = torch.ops.aten.full.default([16, 64], 0, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        where: "f32[16, 64]" = torch.ops.aten.where.self(arg1_1, mul, full_default);  arg1_1 = mul = full_default = None
        gt: "b8[16, 64]" = torch.ops.aten.gt.Scalar(arg0_1, 0.5);  arg0_1 = None
        return (where, gt)
