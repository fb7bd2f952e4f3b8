class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]"):
        # File: /work/main/tests/corpus/src/inductor_clamp.py:13 in forward, code: return torch.clamp(x, self.min_val, self.max_val)
        clamp_min: "f32[16, 64]" = torch.ops.aten.clamp_min.default(arg0_1, -0.5);  arg0_1 = None
        clamp_max: "f32[16, 64]" = torch.ops.aten.clamp_max.default(clamp_min, 0.5);  clamp_min = None
        return (clamp_max,)
