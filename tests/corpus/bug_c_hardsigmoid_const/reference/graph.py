class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/bug_c_hardsigmoid_const.py:27 in forward, code: return F.hardsigmoid(x)
        add: "f32[16, 64]" = torch.ops.aten.add.Tensor(x, 3);  x = None
        clamp: "f32[16, 64]" = torch.ops.aten.clamp.default(add, 0);  add = None
        clamp_1: "f32[16, 64]" = torch.ops.aten.clamp.default(clamp, None, 6);  clamp = None
        div: "f32[16, 64]" = torch.ops.aten.div.Tensor(clamp_1, 6);  clamp_1 = None
        return (div,)
