; Integer arithmetic, bit operations, division by constants and the high half of a widening multiply.
; expect: proved
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @arith_int(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %cta, 6
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %px = getelementptr i32, ptr addrspace(1) %x, i64 %idx
  %xv = load i32, ptr addrspace(1) %px
  %py = getelementptr i32, ptr addrspace(1) %y, i64 %idx
  %yv = load i32, ptr addrspace(1) %py
  %add = add i32 %xv, %yv
  %sub = sub i32 %xv, %yv
  %mul = mul i32 %xv, %yv
  %sd7 = sdiv i32 %xv, 7
  %sr7 = srem i32 %xv, 7
  %ud3 = udiv i32 %xv, 3
  %ur5 = urem i32 %xv, 5
  %shamt = and i32 %yv, 31
  %shl = shl i32 %xv, %shamt
  %lshr = lshr i32 %xv, %shamt
  %ashr = ashr i32 %xv, %shamt
  %and = and i32 %xv, %yv
  %or = or i32 %xv, %yv
  %xor = xor i32 %xv, %yv
  %smin = call i32 @llvm.smin.i32(i32 %xv, i32 %yv)
  %umax = call i32 @llvm.umax.i32(i32 %xv, i32 %yv)
  %abs = call i32 @llvm.abs.i32(i32 %xv, i1 false)
  %pop = call i32 @llvm.ctpop.i32(i32 %xv)
  %clz = call i32 @llvm.ctlz.i32(i32 %xv, i1 false)
  %rev = call i32 @llvm.bitreverse.i32(i32 %xv)
  %xw = sext i32 %xv to i64
  %yw = sext i32 %yv to i64
  %wide = mul i64 %xw, %yw
  %hi64 = lshr i64 %wide, 32
  %hi = trunc i64 %hi64 to i32
  %sbase = mul i64 %idx, 20
  %so0 = add i64 %sbase, 0
  %sp0 = getelementptr i32, ptr addrspace(1) %out, i64 %so0
  store i32 %add, ptr addrspace(1) %sp0
  %so1 = add i64 %sbase, 1
  %sp1 = getelementptr i32, ptr addrspace(1) %out, i64 %so1
  store i32 %sub, ptr addrspace(1) %sp1
  %so2 = add i64 %sbase, 2
  %sp2 = getelementptr i32, ptr addrspace(1) %out, i64 %so2
  store i32 %mul, ptr addrspace(1) %sp2
  %so3 = add i64 %sbase, 3
  %sp3 = getelementptr i32, ptr addrspace(1) %out, i64 %so3
  store i32 %sd7, ptr addrspace(1) %sp3
  %so4 = add i64 %sbase, 4
  %sp4 = getelementptr i32, ptr addrspace(1) %out, i64 %so4
  store i32 %sr7, ptr addrspace(1) %sp4
  %so5 = add i64 %sbase, 5
  %sp5 = getelementptr i32, ptr addrspace(1) %out, i64 %so5
  store i32 %ud3, ptr addrspace(1) %sp5
  %so6 = add i64 %sbase, 6
  %sp6 = getelementptr i32, ptr addrspace(1) %out, i64 %so6
  store i32 %ur5, ptr addrspace(1) %sp6
  %so7 = add i64 %sbase, 7
  %sp7 = getelementptr i32, ptr addrspace(1) %out, i64 %so7
  store i32 %shl, ptr addrspace(1) %sp7
  %so8 = add i64 %sbase, 8
  %sp8 = getelementptr i32, ptr addrspace(1) %out, i64 %so8
  store i32 %lshr, ptr addrspace(1) %sp8
  %so9 = add i64 %sbase, 9
  %sp9 = getelementptr i32, ptr addrspace(1) %out, i64 %so9
  store i32 %ashr, ptr addrspace(1) %sp9
  %so10 = add i64 %sbase, 10
  %sp10 = getelementptr i32, ptr addrspace(1) %out, i64 %so10
  store i32 %and, ptr addrspace(1) %sp10
  %so11 = add i64 %sbase, 11
  %sp11 = getelementptr i32, ptr addrspace(1) %out, i64 %so11
  store i32 %or, ptr addrspace(1) %sp11
  %so12 = add i64 %sbase, 12
  %sp12 = getelementptr i32, ptr addrspace(1) %out, i64 %so12
  store i32 %xor, ptr addrspace(1) %sp12
  %so13 = add i64 %sbase, 13
  %sp13 = getelementptr i32, ptr addrspace(1) %out, i64 %so13
  store i32 %smin, ptr addrspace(1) %sp13
  %so14 = add i64 %sbase, 14
  %sp14 = getelementptr i32, ptr addrspace(1) %out, i64 %so14
  store i32 %umax, ptr addrspace(1) %sp14
  %so15 = add i64 %sbase, 15
  %sp15 = getelementptr i32, ptr addrspace(1) %out, i64 %so15
  store i32 %abs, ptr addrspace(1) %sp15
  %so16 = add i64 %sbase, 16
  %sp16 = getelementptr i32, ptr addrspace(1) %out, i64 %so16
  store i32 %pop, ptr addrspace(1) %sp16
  %so17 = add i64 %sbase, 17
  %sp17 = getelementptr i32, ptr addrspace(1) %out, i64 %so17
  store i32 %clz, ptr addrspace(1) %sp17
  %so18 = add i64 %sbase, 18
  %sp18 = getelementptr i32, ptr addrspace(1) %out, i64 %so18
  store i32 %rev, ptr addrspace(1) %sp18
  %so19 = add i64 %sbase, 19
  %sp19 = getelementptr i32, ptr addrspace(1) %out, i64 %so19
  store i32 %hi, ptr addrspace(1) %sp19
  br label %exit
exit:
  ret void
}

declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.bitreverse.i32(i32)

!nvvm.annotations = !{!0}
!0 = !{ptr @arith_int, !"reqntidx", i32 64}
