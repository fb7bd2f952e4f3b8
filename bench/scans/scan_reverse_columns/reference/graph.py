class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64, 32]"):
        # File: /work/main/bench/scans/src/scan_reverse_columns.py:22 in forward, code: return torch.flip(torch.cumsum(torch.flip(x, [0]), dim=0), [0])
        flip: "f32[64, 32]" = torch.ops.aten.flip.default(x, [0]);  x = None
        cumsum: "f32[64, 32]" = torch.ops.aten.cumsum.default(flip, 0);  flip = None
        flip_1: "f32[64, 32]" = torch.ops.aten.flip.default(cumsum, [0]);  cumsum = None
        return (flip_1,)
