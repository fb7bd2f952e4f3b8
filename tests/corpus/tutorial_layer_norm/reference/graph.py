class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[256]", p_bias: "f32[256]", x: "f32[16, 256]"):
        # File: /work/main/tests/corpus/src/tutorial_layer_norm.py:52 in forward, code: return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)
        native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [256], p_weight, p_bias, 1e-05);  x = p_weight = p_bias = None
        getitem: "f32[16, 256]" = native_layer_norm[0];  native_layer_norm = None
        return (getitem,)
