; A struct returned with its second field stored at the wrong offset.
; mutate: s/\[func_retval0+4\]/[func_retval0+5]/
; expect: counterexample
target triple = "nvptx64-nvidia-cuda"

define { i32, i8 } @pair(i32 %a, i8 %b) {
  %p = insertvalue { i32, i8 } poison, i32 %a, 0
  %q = insertvalue { i32, i8 } %p, i8 %b, 1
  ret { i32, i8 } %q
}
