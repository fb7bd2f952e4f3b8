class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 64]", arg1_1: "f16[16, 64]"):
        # File: /work/main/tests/corpus/src/inductor_f16_add.py:11 in forward, code: return x.to(torch.float16) + y
        convert_element_type: "f16[16, 64]" = torch.ops.prims.convert_element_type.default(arg0_1, torch.float16);  arg0_1 = None
        add: "f16[16, 64]" = torch.ops.aten.add.Tensor(convert_element_type, arg1_1);  convert_element_type = arg1_1 = None
        return (add,)
