class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[1024]"):
        # File: /work/main/bench/heldout2/src/inductor_nan_to_num.py:9 in forward, code: return torch.nan_to_num(args[0] * 1e30, nan=0.0, posinf=1.0, neginf=-1.0)
        mul: "f32[1024]" = torch.ops.aten.mul.Tensor(arg0_1, 1e+30);  arg0_1 = None
        eq_1: "b8[1024]" = torch.ops.aten.eq.Scalar(mul, inf)
        full_default_2: "f32[]" = torch.ops.aten.full.default([], 1.0, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        eq: "b8[1024]" = torch.ops.aten.eq.Scalar(mul, -inf)
        full_default_1: "f32[]" = torch.ops.aten.full.default([], -1.0, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        isnan: "b8[1024]" = torch.ops.aten.isnan.default(mul)
        full_default: "f32[]" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        where: "f32[1024]" = torch.ops.aten.where.self(isnan, full_default, mul);  isnan = full_default = mul = None
        where_1: "f32[1024]" = torch.ops.aten.where.self(eq, full_default_1, where);  eq = full_default_1 = where = None
        where_2: "f32[1024]" = torch.ops.aten.where.self(eq_1, full_default_2, where_1);  eq_1 = full_default_2 = where_1 = None
        return (where_2,)
