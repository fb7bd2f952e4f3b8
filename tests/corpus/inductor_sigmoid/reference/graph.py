class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/inductor_sigmoid.py:11 in forward, code: return torch.sigmoid(x)
        sigmoid: "f32[16, 64]" = torch.ops.aten.sigmoid.default(arg0_1);  arg0_1 = None
        return (sigmoid,)
