; The caller leaves the bits of the .b32 slot above an i16 unspecified: a
; PTX that reads the whole slot returns them.
; mutate: s/ld\.param\.b16 \t%r1/ld.param.b32 \t%r1/
; expect: counterexample
target triple = "nvptx64-nvidia-cuda"

define i32 @widen(i16 %a) {
  %r = zext i16 %a to i32
  ret i32 %r
}
