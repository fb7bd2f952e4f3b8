; Every float and integer comparison predicate, each choosing between its operands.
; expect: proved
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @setp_selp(ptr addrspace(1) %x, ptr addrspace(1) %y, ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out, i32 %n) {
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
  %pa = getelementptr i32, ptr addrspace(1) %a, i64 %idx
  %av = load i32, ptr addrspace(1) %pa
  %pb = getelementptr i32, ptr addrspace(1) %b, i64 %idx
  %bv = load i32, ptr addrspace(1) %pb
  %fcoeq = fcmp oeq float %xv, %yv
  %fsoeq = select i1 %fcoeq, float %xv, float %yv
  %fcone = fcmp one float %xv, %yv
  %fsone = select i1 %fcone, float %xv, float %yv
  %fcolt = fcmp olt float %xv, %yv
  %fsolt = select i1 %fcolt, float %xv, float %yv
  %fcole = fcmp ole float %xv, %yv
  %fsole = select i1 %fcole, float %xv, float %yv
  %fcogt = fcmp ogt float %xv, %yv
  %fsogt = select i1 %fcogt, float %xv, float %yv
  %fcoge = fcmp oge float %xv, %yv
  %fsoge = select i1 %fcoge, float %xv, float %yv
  %fcord = fcmp ord float %xv, %yv
  %fsord = select i1 %fcord, float %xv, float %yv
  %fcueq = fcmp ueq float %xv, %yv
  %fsueq = select i1 %fcueq, float %xv, float %yv
  %fcune = fcmp une float %xv, %yv
  %fsune = select i1 %fcune, float %xv, float %yv
  %fcult = fcmp ult float %xv, %yv
  %fsult = select i1 %fcult, float %xv, float %yv
  %fcule = fcmp ule float %xv, %yv
  %fsule = select i1 %fcule, float %xv, float %yv
  %fcugt = fcmp ugt float %xv, %yv
  %fsugt = select i1 %fcugt, float %xv, float %yv
  %fcuge = fcmp uge float %xv, %yv
  %fsuge = select i1 %fcuge, float %xv, float %yv
  %fcuno = fcmp uno float %xv, %yv
  %fsuno = select i1 %fcuno, float %xv, float %yv
  %iceq = icmp eq i32 %av, %bv
  %iseq = select i1 %iceq, i32 %av, i32 %bv
  %isfeq = bitcast i32 %iseq to float
  %icne = icmp ne i32 %av, %bv
  %isne = select i1 %icne, i32 %av, i32 %bv
  %isfne = bitcast i32 %isne to float
  %icslt = icmp slt i32 %av, %bv
  %isslt = select i1 %icslt, i32 %av, i32 %bv
  %isfslt = bitcast i32 %isslt to float
  %icsle = icmp sle i32 %av, %bv
  %issle = select i1 %icsle, i32 %av, i32 %bv
  %isfsle = bitcast i32 %issle to float
  %icsgt = icmp sgt i32 %av, %bv
  %issgt = select i1 %icsgt, i32 %av, i32 %bv
  %isfsgt = bitcast i32 %issgt to float
  %icsge = icmp sge i32 %av, %bv
  %issge = select i1 %icsge, i32 %av, i32 %bv
  %isfsge = bitcast i32 %issge to float
  %icult = icmp ult i32 %av, %bv
  %isult = select i1 %icult, i32 %av, i32 %bv
  %isfult = bitcast i32 %isult to float
  %icule = icmp ule i32 %av, %bv
  %isule = select i1 %icule, i32 %av, i32 %bv
  %isfule = bitcast i32 %isule to float
  %icugt = icmp ugt i32 %av, %bv
  %isugt = select i1 %icugt, i32 %av, i32 %bv
  %isfugt = bitcast i32 %isugt to float
  %icuge = icmp uge i32 %av, %bv
  %isuge = select i1 %icuge, i32 %av, i32 %bv
  %isfuge = bitcast i32 %isuge to float
  %sbase = mul i64 %idx, 24
  %so0 = add i64 %sbase, 0
  %sp0 = getelementptr float, ptr addrspace(1) %out, i64 %so0
  store float %fsoeq, ptr addrspace(1) %sp0
  %so1 = add i64 %sbase, 1
  %sp1 = getelementptr float, ptr addrspace(1) %out, i64 %so1
  store float %fsone, ptr addrspace(1) %sp1
  %so2 = add i64 %sbase, 2
  %sp2 = getelementptr float, ptr addrspace(1) %out, i64 %so2
  store float %fsolt, ptr addrspace(1) %sp2
  %so3 = add i64 %sbase, 3
  %sp3 = getelementptr float, ptr addrspace(1) %out, i64 %so3
  store float %fsole, ptr addrspace(1) %sp3
  %so4 = add i64 %sbase, 4
  %sp4 = getelementptr float, ptr addrspace(1) %out, i64 %so4
  store float %fsogt, ptr addrspace(1) %sp4
  %so5 = add i64 %sbase, 5
  %sp5 = getelementptr float, ptr addrspace(1) %out, i64 %so5
  store float %fsoge, ptr addrspace(1) %sp5
  %so6 = add i64 %sbase, 6
  %sp6 = getelementptr float, ptr addrspace(1) %out, i64 %so6
  store float %fsord, ptr addrspace(1) %sp6
  %so7 = add i64 %sbase, 7
  %sp7 = getelementptr float, ptr addrspace(1) %out, i64 %so7
  store float %fsueq, ptr addrspace(1) %sp7
  %so8 = add i64 %sbase, 8
  %sp8 = getelementptr float, ptr addrspace(1) %out, i64 %so8
  store float %fsune, ptr addrspace(1) %sp8
  %so9 = add i64 %sbase, 9
  %sp9 = getelementptr float, ptr addrspace(1) %out, i64 %so9
  store float %fsult, ptr addrspace(1) %sp9
  %so10 = add i64 %sbase, 10
  %sp10 = getelementptr float, ptr addrspace(1) %out, i64 %so10
  store float %fsule, ptr addrspace(1) %sp10
  %so11 = add i64 %sbase, 11
  %sp11 = getelementptr float, ptr addrspace(1) %out, i64 %so11
  store float %fsugt, ptr addrspace(1) %sp11
  %so12 = add i64 %sbase, 12
  %sp12 = getelementptr float, ptr addrspace(1) %out, i64 %so12
  store float %fsuge, ptr addrspace(1) %sp12
  %so13 = add i64 %sbase, 13
  %sp13 = getelementptr float, ptr addrspace(1) %out, i64 %so13
  store float %fsuno, ptr addrspace(1) %sp13
  %so14 = add i64 %sbase, 14
  %sp14 = getelementptr float, ptr addrspace(1) %out, i64 %so14
  store float %isfeq, ptr addrspace(1) %sp14
  %so15 = add i64 %sbase, 15
  %sp15 = getelementptr float, ptr addrspace(1) %out, i64 %so15
  store float %isfne, ptr addrspace(1) %sp15
  %so16 = add i64 %sbase, 16
  %sp16 = getelementptr float, ptr addrspace(1) %out, i64 %so16
  store float %isfslt, ptr addrspace(1) %sp16
  %so17 = add i64 %sbase, 17
  %sp17 = getelementptr float, ptr addrspace(1) %out, i64 %so17
  store float %isfsle, ptr addrspace(1) %sp17
  %so18 = add i64 %sbase, 18
  %sp18 = getelementptr float, ptr addrspace(1) %out, i64 %so18
  store float %isfsgt, ptr addrspace(1) %sp18
  %so19 = add i64 %sbase, 19
  %sp19 = getelementptr float, ptr addrspace(1) %out, i64 %so19
  store float %isfsge, ptr addrspace(1) %sp19
  %so20 = add i64 %sbase, 20
  %sp20 = getelementptr float, ptr addrspace(1) %out, i64 %so20
  store float %isfult, ptr addrspace(1) %sp20
  %so21 = add i64 %sbase, 21
  %sp21 = getelementptr float, ptr addrspace(1) %out, i64 %so21
  store float %isfule, ptr addrspace(1) %sp21
  %so22 = add i64 %sbase, 22
  %sp22 = getelementptr float, ptr addrspace(1) %out, i64 %so22
  store float %isfugt, ptr addrspace(1) %sp22
  %so23 = add i64 %sbase, 23
  %sp23 = getelementptr float, ptr addrspace(1) %out, i64 %so23
  store float %isfuge, ptr addrspace(1) %sp23
  br label %exit
exit:
  ret void
}


!nvvm.annotations = !{!0}
!0 = !{ptr @setp_selp, !"reqntidx", i32 64}
