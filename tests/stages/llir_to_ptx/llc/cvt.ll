; Conversions between f32, f16, bf16, f64 and integers of several widths.
; expect: proved
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @cvt(ptr addrspace(1) %x, ptr addrspace(1) %k, ptr addrspace(1) %h, ptr addrspace(1) %out, i32 %n) {
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
  %xv = load float, ptr addrspace(1) %px  %pk = getelementptr i32, ptr addrspace(1) %k, i64 %idx
  %kv = load i32, ptr addrspace(1) %pk  %ph = getelementptr half, ptr addrspace(1) %h, i64 %idx
  %hv = load half, ptr addrspace(1) %ph
  %c1 = fptosi float %xv to i32
  %c2 = fptoui float %xv to i32
  %c3 = sitofp i32 %kv to float
  %c4 = uitofp i32 %kv to float
  %c5 = fptrunc float %xv to half
  %c6 = fpext half %hv to float
  %c7 = fptrunc float %xv to bfloat
  %c8 = fpext bfloat %c7 to float
  %c9 = trunc i32 %kv to i8
  %c10 = sext i8 %c9 to i32
  %c11 = trunc i32 %kv to i16
  %c12 = zext i16 %c11 to i32
  %c5f = fpext half %c5 to float
  %c13 = call i32 @llvm.fptosi.sat.i32.f32(float %xv)
  %c14 = sitofp i32 %kv to double
  %c15 = fptrunc double %c14 to float
  %c1f = sitofp i32 %c1 to float
  %c2f = uitofp i32 %c2 to float
  %c10f = sitofp i32 %c10 to float
  %c12f = uitofp i32 %c12 to float
  %c13f = sitofp i32 %c13 to float
  %sbase = mul i64 %idx, 11
  %so0 = add i64 %sbase, 0
  %sp0 = getelementptr float, ptr addrspace(1) %out, i64 %so0
  store float %c1f, ptr addrspace(1) %sp0
  %so1 = add i64 %sbase, 1
  %sp1 = getelementptr float, ptr addrspace(1) %out, i64 %so1
  store float %c2f, ptr addrspace(1) %sp1
  %so2 = add i64 %sbase, 2
  %sp2 = getelementptr float, ptr addrspace(1) %out, i64 %so2
  store float %c3, ptr addrspace(1) %sp2
  %so3 = add i64 %sbase, 3
  %sp3 = getelementptr float, ptr addrspace(1) %out, i64 %so3
  store float %c4, ptr addrspace(1) %sp3
  %so4 = add i64 %sbase, 4
  %sp4 = getelementptr float, ptr addrspace(1) %out, i64 %so4
  store float %c5f, ptr addrspace(1) %sp4
  %so5 = add i64 %sbase, 5
  %sp5 = getelementptr float, ptr addrspace(1) %out, i64 %so5
  store float %c6, ptr addrspace(1) %sp5
  %so6 = add i64 %sbase, 6
  %sp6 = getelementptr float, ptr addrspace(1) %out, i64 %so6
  store float %c8, ptr addrspace(1) %sp6
  %so7 = add i64 %sbase, 7
  %sp7 = getelementptr float, ptr addrspace(1) %out, i64 %so7
  store float %c10f, ptr addrspace(1) %sp7
  %so8 = add i64 %sbase, 8
  %sp8 = getelementptr float, ptr addrspace(1) %out, i64 %so8
  store float %c12f, ptr addrspace(1) %sp8
  %so9 = add i64 %sbase, 9
  %sp9 = getelementptr float, ptr addrspace(1) %out, i64 %so9
  store float %c13f, ptr addrspace(1) %sp9
  %so10 = add i64 %sbase, 10
  %sp10 = getelementptr float, ptr addrspace(1) %out, i64 %so10
  store float %c15, ptr addrspace(1) %sp10
  br label %exit
exit:
  ret void
}

declare i32 @llvm.fptosi.sat.i32.f32(float)

!nvvm.annotations = !{!0}
!0 = !{ptr @cvt, !"reqntidx", i32 64}
