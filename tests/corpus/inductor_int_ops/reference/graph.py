class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "i32[16, 64]"):
        # File: /work/main/tests/corpus/src/inductor_int_ops.py:11 in forward, code: return torch.div(x, 3, rounding_mode="floor") + (x & 7)
        div: "i32[16, 64]" = torch.ops.aten.div.Tensor_mode(arg0_1, 3, rounding_mode = 'floor')
        bitwise_and: "i32[16, 64]" = torch.ops.aten.bitwise_and.Scalar(arg0_1, 7);  arg0_1 = None
        add: "i32[16, 64]" = torch.ops.aten.add.Tensor(div, bitwise_and);  div = bitwise_and = None
        return (add,)
