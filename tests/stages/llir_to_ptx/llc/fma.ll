; fma, fmuladd and contractable multiply-adds (contract on both ops) next to ones that must stay unfused.
; expect: proved
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @fma(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %z, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %cta, 6
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %idx
  %xv = load float, ptr addrspace(1) %px
  %py = getelementptr float, ptr addrspace(1) %y, i64 %idx
  %yv = load float, ptr addrspace(1) %py
  %pz = getelementptr float, ptr addrspace(1) %z, i64 %idx
  %zv = load float, ptr addrspace(1) %pz
  %f1 = call float @llvm.fma.f32(float %xv, float %yv, float %zv)
  %m = fmul contract float %xv, %yv
  %f2 = fadd contract float %m, %zv
  %m2 = fmul float %xv, %zv
  %f3 = fsub float %m2, %yv
  %f4 = call float @llvm.fmuladd.f32(float %yv, float %zv, float %xv)
  %nz = fneg float %zv
  %f5 = call float @llvm.fma.f32(float %xv, float %yv, float %nz)
  %sbase = mul i64 %idx, 5
  %so0 = add i64 %sbase, 0
  %sp0 = getelementptr float, ptr addrspace(1) %out, i64 %so0
  store float %f1, ptr addrspace(1) %sp0
  %so1 = add i64 %sbase, 1
  %sp1 = getelementptr float, ptr addrspace(1) %out, i64 %so1
  store float %f2, ptr addrspace(1) %sp1
  %so2 = add i64 %sbase, 2
  %sp2 = getelementptr float, ptr addrspace(1) %out, i64 %so2
  store float %f3, ptr addrspace(1) %sp2
  %so3 = add i64 %sbase, 3
  %sp3 = getelementptr float, ptr addrspace(1) %out, i64 %so3
  store float %f4, ptr addrspace(1) %sp3
  %so4 = add i64 %sbase, 4
  %sp4 = getelementptr float, ptr addrspace(1) %out, i64 %so4
  store float %f5, ptr addrspace(1) %sp4
  br label %exit
exit:
  ret void
}

declare float @llvm.fma.f32(float, float, float)
declare float @llvm.fmuladd.f32(float, float, float)

!nvvm.annotations = !{!0}
!0 = !{ptr @fma, !"reqntidx", i32 64}
