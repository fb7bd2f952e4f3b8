class GraphModule(torch.nn.Module):
    def forward(self, q: "f32[1, 2, 16, 16]", k: "f32[1, 2, 16, 16]"):
        # File: /work/main/tests/corpus/src/bug_a_attention_noclamp.py:32 in forward, code: scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        permute: "f32[1, 2, 16, 16]" = torch.ops.aten.permute.default(k, [0, 1, 3, 2]);  k = None
        expand: "f32[1, 2, 16, 16]" = torch.ops.aten.expand.default(q, [1, 2, 16, 16]);  q = None
        view: "f32[2, 16, 16]" = torch.ops.aten.view.default(expand, [2, 16, 16]);  expand = None
        expand_1: "f32[1, 2, 16, 16]" = torch.ops.aten.expand.default(permute, [1, 2, 16, 16]);  permute = None
        view_1: "f32[2, 16, 16]" = torch.ops.aten.view.default(expand_1, [2, 16, 16]);  expand_1 = None
        bmm: "f32[2, 16, 16]" = torch.ops.aten.bmm.default(view, view_1);  view = view_1 = None
        view_2: "f32[1, 2, 16, 16]" = torch.ops.aten.view.default(bmm, [1, 2, 16, 16]);  bmm = None
        mul: "f32[1, 2, 16, 16]" = torch.ops.aten.mul.Tensor(view_2, 0.25);  view_2 = None

        # File: /work/main/tests/corpus/src/bug_a_attention_noclamp.py:33 in forward, code: scores = torch.clamp(scores, -5.0, 5.0)
        clamp: "f32[1, 2, 16, 16]" = torch.ops.aten.clamp.default(mul, -5.0, 5.0);  mul = None

        # File: /work/main/tests/corpus/src/bug_a_attention_noclamp.py:34 in forward, code: return torch.softmax(scores, dim=-1)
        _softmax: "f32[1, 2, 16, 16]" = torch.ops.aten._softmax.default(clamp, -1, False);  clamp = None
        return (_softmax,)
