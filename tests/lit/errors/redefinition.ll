; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
@x = global i32 0
; CHECK: [[@LINE+1]]:1: error: redefinition of global '@x'
@x = global i32 1
