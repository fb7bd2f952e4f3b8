class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 128]"):
        # No stacktrace found for following nodes
        prepare_softmax_online_default = torch.ops.prims.prepare_softmax_online.default(arg0_1, -1)
        getitem: "f32[16, 1]" = prepare_softmax_online_default[0]
        getitem_1: "f32[16, 1]" = prepare_softmax_online_default[1];  prepare_softmax_online_default = None
        sub_tensor: "f32[16, 128]" = torch.ops.aten.sub.Tensor(arg0_1, getitem);  arg0_1 = getitem = None
        exp_default: "f32[16, 128]" = torch.ops.aten.exp.default(sub_tensor);  exp_default = None

        # File: /work/main/tests/corpus/src/inductor_log_softmax.py:11 in forward, code: return torch.log_softmax(x, dim=-1)
        log: "f32[16, 1]" = torch.ops.aten.log.default(getitem_1);  getitem_1 = None
        sub_1: "f32[16, 128]" = torch.ops.aten.sub.Tensor(sub_tensor, log);  sub_tensor = log = None
        return (sub_1,)
