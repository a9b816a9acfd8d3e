; A syntax error names what was expected, at the offending token, exit 1.
; The source line and a caret under the token follow, as in every LLVM tool.
; RUN: %expect-exit 1 llquote-fmt %s 2>&1 | FileCheck %s -DFILE=%s

define i32 @f(i32 %a) {
; CHECK: {{^}}[[FILE]]:[[@LINE+3]]:19: error: expected ',', found integer '1'{{$}}
; CHECK-NEXT: {{^}}  %b = add i32 %a 1{{$}}
; CHECK-NEXT: {{^                  \^$}}
  %b = add i32 %a 1
  ret i32 %b
}
