class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/bug_b_scaling_hardcoded.py:31 in forward, code: x = torch.clamp(x, self.min_val, self.max_val) * self.scaling_factor
        clamp: "f32[16, 64]" = torch.ops.aten.clamp.default(x, -1.0, 1.0);  x = None
        mul: "f32[16, 64]" = torch.ops.aten.mul.Tensor(clamp, 2.0);  clamp = None

        # File: /work/main/tests/corpus/src/bug_b_scaling_hardcoded.py:32 in forward, code: x = torch.clamp(x, self.min_val, self.max_val)
        clamp_1: "f32[16, 64]" = torch.ops.aten.clamp.default(mul, -1.0, 1.0);  mul = None

        # File: /work/main/tests/corpus/src/bug_b_scaling_hardcoded.py:33 in forward, code: return x / self.scaling_factor
        div: "f32[16, 64]" = torch.ops.aten.div.Tensor(clamp_1, 2.0);  clamp_1 = None
        return (div,)
