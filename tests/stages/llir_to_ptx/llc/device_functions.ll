; Device functions (not kernels): parameters are symbols, the return value
; is a write to the pseudo buffer func_retval0 (one per lane). Narrow
; integers travel in .b32 slots, i1 as a selp, vectors and structs as byte
; arrays; a 64-bit division takes NVPTX's 32-bit bypass.
; expect: proved
target triple = "nvptx64-nvidia-cuda"

define i32 @add_i32(i32 %a, i32 %b) {
  %r = add i32 %a, %b
  ret i32 %r
}

define i16 @mul_i16(i16 %a, i16 %b) {
  %r = mul i16 %a, %b
  ret i16 %r
}

define i8 @sub_i8(i8 %a, i8 %b) {
  %r = sub i8 %a, %b
  ret i8 %r
}

define i1 @less(i32 %a, i32 %b) {
  %r = icmp slt i32 %a, %b
  ret i1 %r
}

define i32 @pick(i1 %c, i32 %a, i32 %b) {
  %r = select i1 %c, i32 %a, i32 %b
  ret i32 %r
}

define i32 @widen(i16 zeroext %a) {
  %r = zext i16 %a to i32
  ret i32 %r
}

define float @muladd(float %a, float %b, float %c) {
  %m = fmul contract float %a, %b
  %r = fadd contract float %m, %c
  ret float %r
}

define <2 x half> @add_v2f16(<2 x half> %a, <2 x half> %b) {
  %r = fadd <2 x half> %a, %b
  ret <2 x half> %r
}

define { i32, i8 } @pair(i32 %a, i8 %b) {
  %p = insertvalue { i32, i8 } poison, i32 %a, 0
  %q = insertvalue { i32, i8 } %p, i8 %b, 1
  ret { i32, i8 } %q
}

define i64 @sdiv_i64(i64 %a, i64 %b) {
  %r = sdiv i64 %a, %b
  ret i64 %r
}

define i64 @urem_i64(i64 %a, i64 %b) {
  %r = urem i64 %a, %b
  ret i64 %r
}

define i32 @branchy(i32 %a, i32 %b) {
entry:
  %c = icmp sgt i32 %a, %b
  br i1 %c, label %big, label %small
big:
  %d = sub i32 %a, %b
  ret i32 %d
small:
  %e = sub i32 %b, %a
  ret i32 %e
}

define void @store_through(ptr addrspace(1) %p, i32 %v) {
  %q = getelementptr i32, ptr addrspace(1) %p, i64 1
  store i32 %v, ptr addrspace(1) %q
  ret void
}
