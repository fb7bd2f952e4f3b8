class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/bug_d_no_write.py:25 in forward, code: return x * torch.sigmoid(x)
        sigmoid: "f32[16, 64]" = torch.ops.aten.sigmoid.default(x)
        mul: "f32[16, 64]" = torch.ops.aten.mul.Tensor(x, sigmoid);  x = sigmoid = None
        return (mul,)
