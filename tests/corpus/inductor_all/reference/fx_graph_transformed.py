class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8, 64]"):
        # File: /tmp/src/inductor_all.py:8 in forward, code: return (x.abs() <= 3.0).all(dim=1)
        abs_1: "f32[8, 64]" = torch.ops.aten.abs.default(arg0_1);  arg0_1 = None
        le: "b8[8, 64]" = torch.ops.aten.le.Scalar(abs_1, 3.0);  abs_1 = None
        logical_not: "b8[8, 64]" = torch.ops.aten.logical_not.default(le);  le = None
        any_1: "b8[8]" = torch.ops.aten.any.dim(logical_not, 1);  logical_not = None
        logical_not_1: "b8[8]" = torch.ops.aten.logical_not.default(any_1);  any_1 = None
        return (logical_not_1,)
