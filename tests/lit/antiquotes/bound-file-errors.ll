; An error inside text read from a file for a binding is reported in that
; file, at its line and column, with a note at the antiquote it went into.
; RUN: not llquote-fmt %s -Dbody=@%S/Inputs/bad-body.ll 2>&1 | FileCheck %s
; CHECK: bad-body.ll:3:19: error: expected ',', found integer '1'
; CHECK-NEXT: {{^}}  %y = add i32 %x 1{{$}}
; CHECK: bound-file-errors.ll:[[@LINE+3]]:3: note: the text of '{{.*}}bad-body.ll' is spliced here, for 'body'
define i32 @f(i32 %x) {
entry:
  $instrs:body
  ret i32 %y
}
