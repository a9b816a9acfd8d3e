; Errors LLVM's assembler finds are reported at the user's text.
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
define i32 @f() {
; CHECK: [[@LINE+1]]:11: error: use of undefined value '%nope'
  ret i32 %nope
}
