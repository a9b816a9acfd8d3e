; What lowering makes stays out of messages, and every message is at the
; author's text: a type clash names the variable, not its version or slot;
; a verifier error in a dialect function is at its instruction; an
; antiquote of the wrong kind says where its kind may stand; `ptr
; addrspace(0)` is `ptr`.
; RUN: split-file %s %t
; RUN: not llquote-fmt %t/version.ll 2>&1 | FileCheck %s --check-prefix=VERSION --implicit-check-not=.load --implicit-check-not=%%x.
; RUN: not llquote-fmt --ssa=mem2reg %t/version.ll 2>&1 | FileCheck %s --check-prefix=VERSION --implicit-check-not=.load --implicit-check-not=%%x.
; RUN: not llquote-fmt %t/same-block.ll 2>&1 | FileCheck %s --check-prefix=SAMEBLOCK --implicit-check-not=%%x.
; RUN: not llquote-fmt --ssa=mem2reg %t/same-block.ll 2>&1 | FileCheck %s --check-prefix=SAMEBLOCK --implicit-check-not=%%x.
; RUN: not llquote-fmt %t/wrong-first.ll 2>&1 | FileCheck %s --check-prefix=WRONGFIRST --implicit-check-not=%%x.
; RUN: not llquote-fmt --ssa=mem2reg %t/wrong-first.ll 2>&1 | FileCheck %s --check-prefix=WRONGFIRST --implicit-check-not=%%x.
; RUN: not llquote-fmt %t/wrong-second.ll 2>&1 | FileCheck %s --check-prefix=WRONGSECOND --implicit-check-not=%%x.
; RUN: not llquote-fmt %t/verifier.ll 2>&1 | FileCheck %s --check-prefix=VERIFIER
; RUN: not llquote-fmt --ssa=mem2reg %t/verifier.ll 2>&1 | FileCheck %s --check-prefix=VERIFIER
; RUN: not llquote-fmt %t/after-phi.ll 2>&1 | FileCheck %s --check-prefix=AFTERPHI
; RUN: not llquote-fmt --ssa=mem2reg %t/after-phi.ll 2>&1 | FileCheck %s --check-prefix=AFTERPHI
; RUN: not llquote-fmt -D t=i32 %t/type-as-operand.ll 2>&1 | FileCheck %s --check-prefix=TYPEOPR
; RUN: llquote-fmt -D n=8 %t/attribute-argument.ll | FileCheck %s --check-prefix=ATTR
; RUN: not llquote-fmt %t/block-in-attribute.ll 2>&1 | FileCheck %s --check-prefix=BLOCKATTR
; RUN: llquote-fmt %t/addrspace0.ll | FileCheck %s --check-prefix=AS0
; RUN: llquote-fmt --ssa=mem2reg %t/addrspace0.ll | FileCheck %s --check-prefix=AS0

; VERSION: version.ll:7:16: error: '%x' defined with type 'i32' but expected 'i64'
;--- version.ll
define i32 @f(i32 %a, i1 %c) {
entry:
  %x = i32 %a
  if %c {
    %x = add i32 %x, 1
  }
  %y = add i64 %x, 1
  ret i32 %x
}

; A read after its variable's definition in the same block names that
; definition, and LLVM's parser finds the clash: still the variable's name.
; SAMEBLOCK: same-block.ll:4:16: error: '%x' defined with type 'i32' but expected 'i64'
;--- same-block.ll
define i32 @f(i32 %a) {
  %x = i32 %a
  %x = add i32 %x, 2
  %y = add i64 %x, 1
  ret i32 %x
}

; Two reads of a variable in one block with no definition between share a
; placeholder only when written with the same type: the wrong one is found,
; whichever comes first.
; WRONGFIRST: wrong-first.ll:6:16: error: '%x' defined with type 'i32' but expected 'i64'
;--- wrong-first.ll
define i32 @f(i32 %a, i1 %c) {
  %x = i32 %a
  if %c {
    %x = add i32 %x, 1
  }
  %y = add i64 %x, 1
  %z = add i32 %x, 2
  ret i32 %z
}

; WRONGSECOND: wrong-second.ll:7:16: error: '%x' defined with type 'i32' but expected 'i64'
;--- wrong-second.ll
define i32 @f(i32 %a, i1 %c) {
  %x = i32 %a
  if %c {
    %x = add i32 %x, 1
  }
  %z = add i32 %x, 2
  %y = add i64 %x, 1
  ret i32 %z
}

; VERIFIER: verifier.ll:6:3: error: immarg operand has non-immediate parameter
; VERIFIER-NEXT: call void @llvm.memcpy
;--- verifier.ll
define void @f(ptr %a, ptr %b, i1 %c, i32 %n) {
entry:
  for i32 %i in 0 to %n {
    %k = add i32 %i, 1
  }
  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %b, i64 8, i1 %c)
  ret void
}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1 immarg)

; In a block that begins with a phi restoration inserted, after a read
; restoration deleted: neither may shift the instruction found.
; AFTERPHI: after-phi.ll:9:3: error: immarg operand has non-immediate parameter
; AFTERPHI-NEXT: call void @llvm.memcpy
;--- after-phi.ll
define void @g(ptr %a, ptr %b, i1 %c, i32 %n) {
  %x = i32 0
  if %c {
    %x = add i32 %n, 1
  } else {
    %x = add i32 %n, 2
  }
  %y = add i32 %x, 1
  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %b, i64 8, i1 %c)
  ret void
}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1 immarg)

; TYPEOPR: type-as-operand.ll:2:16: error: antiquote '$type:t' cannot stand here; it may stand where a type may
;--- type-as-operand.ll
define i32 @f(i32 %a) {
  %x = add i32 $type:t, 1
  ret i32 %x
}

; ATTR: define void @f(ptr dereferenceable(8) %p)
;--- attribute-argument.ll
define void @f(ptr dereferenceable($opr:n) %p) {
  ret void
}

; BLOCKATTR: block-in-attribute.ll:1:36: error: antiquote '$bb:n' cannot stand here; it may stand where an instruction or a block may
;--- block-in-attribute.ll
define void @f(ptr dereferenceable($bb:n) %p) {
  ret void
}

; AS0: define ptr @f(ptr %a)
; AS0: %q = getelementptr i8, ptr %a, i64 1
; AS0-NEXT: ret ptr %q
;--- addrspace0.ll
define ptr @f(ptr %a) {
entry:
  %p = ptr addrspace(0) %a
  %q = getelementptr i8, ptr %p, i64 1
  %p = ptr %q
  ret ptr %p
}
