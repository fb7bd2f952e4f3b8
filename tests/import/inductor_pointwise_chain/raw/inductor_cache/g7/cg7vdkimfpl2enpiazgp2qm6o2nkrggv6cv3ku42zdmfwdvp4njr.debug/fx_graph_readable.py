class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]", arg1_1: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/inductor_pointwise_chain.py:11 in forward, code: return torch.relu((x + y) * 2.0)
        add: "f32[16, 64]" = torch.ops.aten.add.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
        mul: "f32[16, 64]" = torch.ops.aten.mul.Tensor(add, 2.0);  add = None
        relu: "f32[16, 64]" = torch.ops.aten.relu.default(mul);  mul = None
        return (relu,)
