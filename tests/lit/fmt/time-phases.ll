; --time-phases reports each phase of the front end on standard error, as
; -time-passes does for LLVM's passes; the IR on standard output is unchanged.
; RUN: llquote-fmt --time-phases %s -o %t.ll 2> %t.err
; RUN: FileCheck %s --check-prefix=TIMES < %t.err
; RUN: FileCheck %s --check-prefix=IR < %t.ll
; TIMES: llquote front end
; TIMES-DAG: Read the dialect
; TIMES-DAG: Lower to LLVM IR with placeholders
; TIMES-DAG: Assemble (LLVM's parser)
; TIMES-DAG: Restore SSA
; TIMES-DAG: Verify
; TIMES: Total
; Without the option, nothing is timed.
; RUN: llquote-fmt %s -o /dev/null 2>&1 | count 0
; IR: define i32 @sum(i32 %n)
; IR: %s.1 = phi i32

define i32 @sum(i32 %n) {
entry:
  %s = i32 0
  for i32 %i in 0 to %n {
    %s = add i32 %s, %i
  }
  ret i32 %s
}
