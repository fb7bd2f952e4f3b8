; Float arithmetic: add, sub, mul, div, neg, abs, maxnum, minimum.
; expect: proved
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @arith_f32(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %cta, 7
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %idx
  %py = getelementptr float, ptr addrspace(1) %y, i64 %idx
  %a = load float, ptr addrspace(1) %px
  %b = load float, ptr addrspace(1) %py
  %s = fadd float %a, %b
  %d = fsub float %s, %b
  %m = fmul float %d, %a
  %q = fdiv float %m, %b
  %ng = fneg float %q
  %ab = call float @llvm.fabs.f32(float %ng)
  %mx = call float @llvm.maxnum.f32(float %ab, float %a)
  %mn = call float @llvm.minimum.f32(float %mx, float %b)
  %po = getelementptr float, ptr addrspace(1) %out, i64 %idx
  store float %mn, ptr addrspace(1) %po
  br label %exit
exit:
  ret void
}

declare float @llvm.fabs.f32(float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minimum.f32(float, float)

!nvvm.annotations = !{!0}
!0 = !{ptr @arith_f32, !"reqntidx", i32 128}
