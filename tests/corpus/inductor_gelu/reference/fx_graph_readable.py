class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/inductor_gelu.py:12 in forward, code: return F.gelu(x)
        mul: "f32[16, 64]" = torch.ops.aten.mul.Tensor(arg0_1, 0.5)
        mul_1: "f32[16, 64]" = torch.ops.aten.mul.Tensor(arg0_1, 0.7071067811865476);  arg0_1 = None
        erf: "f32[16, 64]" = torch.ops.aten.erf.default(mul_1);  mul_1 = None
        add: "f32[16, 64]" = torch.ops.aten.add.Tensor(erf, 1);  erf = None
        mul_2: "f32[16, 64]" = torch.ops.aten.mul.Tensor(mul, add);  mul = add = None
        return (mul_2,)
