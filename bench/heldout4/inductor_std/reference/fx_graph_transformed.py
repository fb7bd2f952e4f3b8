class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8, 64]"):
        # File: /work/main/bench/heldout4/src/inductor_std.py:8 in forward, code: return torch.std(x, dim=1)
        var: "f32[8]" = torch.ops.aten.var.correction(arg0_1, [1], correction = 1.0);  arg0_1 = None
        sqrt: "f32[8]" = torch.ops.aten.sqrt.default(var);  var = None
        return (sqrt,)
