; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
define i32 @f(i64 %a) {
; CHECK: [[@LINE+1]]:16: error: '%a' defined with type 'i64' but expected 'i32'
  %b = add i32 %a, 1
  ret i32 %b
}
