class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1000]", y: "f32[1000]"):
        # File: /work/main/tests/corpus/src/tutorial_vector_add.py:26 in forward, code: return x + y
        add: "f32[1000]" = torch.ops.aten.add.Tensor(x, y);  x = y = None
        return (add,)
