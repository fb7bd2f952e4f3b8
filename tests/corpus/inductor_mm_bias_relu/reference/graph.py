class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[64, 32]", arg1_1: "f32[32, 64]", arg2_1: "f32[32]"):
        # File: /work/main/tests/corpus/src/inductor_mm_bias_relu.py:14 in forward, code: return torch.relu(torch.mm(x, self.weight) + self.bias)
        mm: "f32[32, 32]" = torch.ops.aten.mm.default(arg1_1, arg0_1);  arg1_1 = arg0_1 = None
        add: "f32[32, 32]" = torch.ops.aten.add.Tensor(mm, arg2_1);  mm = arg2_1 = None
        relu: "f32[32, 32]" = torch.ops.aten.relu.default(add);  add = None
        return (relu,)
