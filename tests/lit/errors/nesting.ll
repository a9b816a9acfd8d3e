; Nesting deeper than LLVM's parser can take is refused up front.
; RUN: %python -c "print('%%t = type ' + '{'*300 + 'i32' + '}'*300)" > %t.ll
; RUN: not llquote-fmt %t.ll 2>&1 | FileCheck %s
; CHECK: 1:267: error: brackets nested more than 256 levels deep
