class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 128]"):
        # File: /work/main/tests/corpus/src/bug_g_softmax_nomax.py:26 in forward, code: return torch.softmax(x, dim=-1)
        _softmax: "f32[16, 128]" = torch.ops.aten._softmax.default(x, -1, False);  x = None
        return (_softmax,)
