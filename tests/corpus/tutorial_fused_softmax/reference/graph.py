class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[32, 100]"):
        # File: /work/main/tests/corpus/src/tutorial_fused_softmax.py:35 in forward, code: return torch.softmax(x, dim=-1)
        _softmax: "f32[32, 100]" = torch.ops.aten._softmax.default(x, -1, False);  x = None
        return (_softmax,)
