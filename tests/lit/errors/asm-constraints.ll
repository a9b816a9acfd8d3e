; Inline asm constraints that LLVM's reader would read past the end of are
; refused, at the constraint string; legal ones are kept as they are.
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
; RUN: llquote-fmt %S/Inputs/asm-constraints-ok.ll | FileCheck %s --check-prefix=OK
; CHECK: asm-constraints.ll:[[@LINE+2]]:23: error: inline asm constraint 'x @y': '@' must be followed by a count of letters, 1 to 9, and that many letters
define void @f() {
  callbr void asm "", "x @y,!i"() to label %a [label %b]
a:
  ret void
b:
  ret void
}
; OK: call i32 asm "", "={@ccz},^Wa,~{memory}"(i32 0)
; OK: call void asm sideeffect "", "@2ab"(i32 1)
