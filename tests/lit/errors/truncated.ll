; A file that ends inside a function names what it still expected.
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
; CHECK: truncated.ll:[[@LINE+3]]:1: error: expected instruction, '}' or 'uselistorder', found end of file
define void @f() {
  ret void
