; Vector loads and stores (v4 f32, v2 f16), byte and 64-bit accesses.
; expect: proved
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @ld_st(ptr addrspace(1) %x, ptr addrspace(1) %out, ptr addrspace(1) %bytes, ptr addrspace(1) %halves, ptr addrspace(1) %longs, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %cta, 6
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %vi = mul i64 %idx, 4
  %pv = getelementptr float, ptr addrspace(1) %x, i64 %vi
  %v = load <4 x float>, ptr addrspace(1) %pv, align 16
  %e0 = extractelement <4 x float> %v, i32 0
  %e3 = extractelement <4 x float> %v, i32 3
  %s = fadd float %e0, %e3
  %w = insertelement <4 x float> %v, float %s, i32 1
  %po = getelementptr float, ptr addrspace(1) %out, i64 %vi
  store <4 x float> %w, ptr addrspace(1) %po, align 16
  %pb = getelementptr i8, ptr addrspace(1) %bytes, i64 %idx
  %bv = load i8, ptr addrspace(1) %pb
  %b1 = add i8 %bv, 1
  store i8 %b1, ptr addrspace(1) %pb
  %ph = getelementptr half, ptr addrspace(1) %halves, i64 %vi
  %hv = load <2 x half>, ptr addrspace(1) %ph, align 4
  %hs = fadd <2 x half> %hv, %hv
  store <2 x half> %hs, ptr addrspace(1) %ph, align 4
  %pd = getelementptr i64, ptr addrspace(1) %longs, i64 %idx
  %dv = load i64, ptr addrspace(1) %pd
  %d2 = shl i64 %dv, 3
  store i64 %d2, ptr addrspace(1) %pd
  br label %exit
exit:
  ret void
}


!nvvm.annotations = !{!0}
!0 = !{ptr @ld_st, !"reqntidx", i32 64}
