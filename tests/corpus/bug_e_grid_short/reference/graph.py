class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1000]"):
        # File: /work/main/tests/corpus/src/bug_e_grid_short.py:23 in forward, code: return x * 2.0 + 1.0
        mul: "f32[1000]" = torch.ops.aten.mul.Tensor(x, 2.0);  x = None
        add: "f32[1000]" = torch.ops.aten.add.Tensor(mul, 1.0);  mul = None
        return (add,)
