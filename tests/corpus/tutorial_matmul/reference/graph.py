class GraphModule(torch.nn.Module):
    def forward(self, a: "f16[64, 64]", b: "f16[64, 64]"):
        # File: /work/main/tests/corpus/src/tutorial_matmul.py:58 in forward, code: return torch.matmul(a, b)
        mm: "f16[64, 64]" = torch.ops.aten.mm.default(a, b);  a = b = None
        return (mm,)
