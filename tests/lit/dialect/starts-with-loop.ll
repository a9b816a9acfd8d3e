; A control structure may open a function, with no entry label: the entry
; block is generated.
; RUN: llquote-fmt %s | FileCheck %s
; RUN: %ssa-compare %s | FileCheck %s --check-prefix=RUNS
; RUNS: exit 10

define i32 @main() {
  for i32 %i in 0 to 4 {
    %t = i32 %i
  }
  %r = i32 10
  ret i32 %r
}
; CHECK-LABEL: define i32 @main() {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    br label %for.cond
; CHECK:       for.end:
; CHECK-NEXT:    ret i32 10
