class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[1024]"):
        # File: /work/main/bench/heldout2/src/inductor_clamp_min_int.py:9 in forward, code: return torch.clamp_min(args[0], 0.0).to(torch.int32)
        clamp_min: "f32[1024]" = torch.ops.aten.clamp_min.default(arg0_1, 0.0);  arg0_1 = None
        convert_element_type: "i32[1024]" = torch.ops.prims.convert_element_type.default(clamp_min, torch.int32);  clamp_min = None
        return (convert_element_type,)
