class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[512]", arg1_1: "f32[512]"):
        # File: /work/main/bench/heldout/src/inductor_mse_loss.py:9 in forward, code: return F.mse_loss(a, b)
        sub: "f32[512]" = torch.ops.aten.sub.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
        pow_1: "f32[512]" = torch.ops.aten.pow.Tensor_Scalar(sub, 2);  sub = None
        mean: "f32[]" = torch.ops.aten.mean.default(pow_1);  pow_1 = None
        return (mean,)
