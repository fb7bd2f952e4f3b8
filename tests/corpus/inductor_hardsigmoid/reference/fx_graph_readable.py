class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/inductor_hardsigmoid.py:13 in forward, code: return F.hardsigmoid(x)
        add: "f32[16, 64]" = torch.ops.aten.add.Tensor(arg0_1, 3);  arg0_1 = None
        clamp_min: "f32[16, 64]" = torch.ops.aten.clamp_min.default(add, 0);  add = None
        clamp_max: "f32[16, 64]" = torch.ops.aten.clamp_max.default(clamp_min, 6);  clamp_min = None
        div: "f32[16, 64]" = torch.ops.aten.div.Tensor(clamp_max, 6);  clamp_max = None
        return (div,)
