class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]"):
        # File: /work/main/bench/heldout2/src/inductor_logsumexp.py:9 in forward, code: return torch.logsumexp(args[0], dim=-1)
        amax: "f32[16, 1]" = torch.ops.aten.amax.default(arg0_1, [-1], True)
        abs_1: "f32[16, 1]" = torch.ops.aten.abs.default(amax)
        eq: "b8[16, 1]" = torch.ops.aten.eq.Scalar(abs_1, inf);  abs_1 = None
        full_default: "f32[]" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        where: "f32[16, 1]" = torch.ops.aten.where.self(eq, full_default, amax);  eq = full_default = amax = None
        squeeze: "f32[16]" = torch.ops.aten.squeeze.dims(where, [-1])
        sub: "f32[16, 64]" = torch.ops.aten.sub.Tensor(arg0_1, where);  arg0_1 = where = None
        exp: "f32[16, 64]" = torch.ops.aten.exp.default(sub);  sub = None
        sum_1: "f32[16]" = torch.ops.aten.sum.dim_IntList(exp, [-1]);  exp = None
        log: "f32[16]" = torch.ops.aten.log.default(sum_1);  sum_1 = None
        add: "f32[16]" = torch.ops.aten.add.Tensor(log, squeeze);  log = squeeze = None
        return (add,)
