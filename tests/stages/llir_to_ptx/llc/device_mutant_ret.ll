; A device function whose PTX returns the difference, not the sum.
; mutate: s/add\.s32/sub.s32/
; expect: counterexample
target triple = "nvptx64-nvidia-cuda"

define i32 @add_i32(i32 %a, i32 %b) {
  %r = add i32 %a, %b
  ret i32 %r
}
