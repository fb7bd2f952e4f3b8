class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[128]", arg1_1: "f32[128]", arg2_1: "f32[16, 128]"):
        # File: /work/main/tests/corpus/src/inductor_layer_norm.py:15 in forward, code: return self.ln(x)
        var_mean = torch.ops.aten.var_mean.correction(arg2_1, [1], correction = 0, keepdim = True)
        getitem: "f32[16, 1]" = var_mean[0]
        getitem_1: "f32[16, 1]" = var_mean[1];  var_mean = None
        sub: "f32[16, 128]" = torch.ops.aten.sub.Tensor(arg2_1, getitem_1);  arg2_1 = getitem_1 = None
        add: "f32[16, 1]" = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt: "f32[16, 1]" = torch.ops.aten.rsqrt.default(add);  add = None
        mul: "f32[16, 128]" = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = rsqrt = None
        mul_1: "f32[16, 128]" = torch.ops.aten.mul.Tensor(mul, arg0_1);  mul = arg0_1 = None
        add_1: "f32[16, 128]" = torch.ops.aten.add.Tensor(mul_1, arg1_1);  mul_1 = arg1_1 = None
        return (add_1,)
