class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8, 16, 16]"):
        # File: /work/main/bench/heldout2/src/inductor_mean_2d.py:9 in forward, code: return args[0].mean(dim=(1, 2))
        mean: "f32[8]" = torch.ops.aten.mean.dim(arg0_1, [1, 2]);  arg0_1 = None
        return (mean,)
