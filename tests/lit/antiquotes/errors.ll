; Antiquote errors are located at the antiquote, and name it.
; RUN: not llquote-fmt %s -Dt=i32 2>&1 | FileCheck %s --check-prefix=UNBOUND
; UNBOUND: errors.ll:[[@LINE+8]]:15: error: unbound antiquote '$const:c': nothing is bound to 'c'
; RUN: not llquote-fmt %s -Dt=i32 -Dc=1.5 2>&1 | FileCheck %s --check-prefix=FIT
; FIT: errors.ll:[[@LINE+6]]:15: error: floating point constant invalid for type
; RUN: not llquote-fmt %s -Dt=i64 -Dc=1 2>&1 | FileCheck %s --check-prefix=TYPE
; TYPE: errors.ll:[[@LINE+4]]:7: error: value doesn't match function result type 'i32'
; RUN: not llquote-fmt %s -Dt=i32 -Dc=1 "-Dt" 2>&1 | FileCheck %s --check-prefix=NOEQ
; NOEQ: llquote-fmt: error: -Dt: expected NAME=TEXT or NAME=@FILE
define i32 @f() {
  ret $type:t $const:c
}
; RUN: not llquote-fmt %s -Dt=i32 -Dc=@%t.missing 2>&1 | FileCheck %s --check-prefix=FILE
; FILE: llquote-fmt: error: -Dc: cannot read '{{.*}}missing'
