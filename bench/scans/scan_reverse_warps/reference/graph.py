class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 512]"):
        # File: /work/main/bench/scans/src/scan_reverse_warps.py:21 in forward, code: return torch.flip(torch.cumsum(torch.flip(x, [1]), dim=1), [1])
        flip: "f32[2, 512]" = torch.ops.aten.flip.default(x, [1]);  x = None
        cumsum: "f32[2, 512]" = torch.ops.aten.cumsum.default(flip, 1);  flip = None
        flip_1: "f32[2, 512]" = torch.ops.aten.flip.default(cumsum, [1]);  cumsum = None
        return (flip_1,)
