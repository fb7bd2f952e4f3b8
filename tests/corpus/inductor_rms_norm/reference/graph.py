class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 128]", arg1_1: "f32[128]"):
        # File: /work/main/tests/corpus/src/inductor_rms_norm.py:13 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_1: "f32[16, 128]" = torch.ops.aten.pow.Tensor_Scalar(arg0_1, 2)
        mean: "f32[16, 1]" = torch.ops.aten.mean.dim(pow_1, [-1], True);  pow_1 = None
        add: "f32[16, 1]" = torch.ops.aten.add.Tensor(mean, 1e-06);  mean = None
        rsqrt: "f32[16, 1]" = torch.ops.aten.rsqrt.default(add);  add = None
        mul: "f32[16, 128]" = torch.ops.aten.mul.Tensor(arg0_1, rsqrt);  arg0_1 = rsqrt = None
        mul_1: "f32[16, 128]" = torch.ops.aten.mul.Tensor(mul, arg1_1);  mul = arg1_1 = None
        return (mul_1,)
