; A struct type that contains itself (not a pointer to itself) has no size.
; LLVM 19 reads its definition, but its parser overflows the stack on some
; uses of it (a getelementptr with no index, a call that passes one).
; llquote refuses the definition, naming the type; a type that points to
; itself is fine.
; RUN: %expect-exit 1 llquote-fmt %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump"
; RUN: %expect-exit 1 llquote-fmt %S/Inputs/self-contained-type-direct.ll 2>&1 \
; RUN:   | FileCheck %S/Inputs/self-contained-type-direct.ll --check-prefix=DIRECT
; RUN: %expect-exit 1 llquote-fmt %S/Inputs/self-contained-type-syntax.ll 2>&1 \
; RUN:   | FileCheck %S/Inputs/self-contained-type-syntax.ll --check-prefix=SYNTAX --implicit-check-not="Stack dump"
; RUN: %expect-exit 1 llquote-fmt %S/Inputs/self-contained-type-comment.ll 2>&1 \
; RUN:   | FileCheck %S/Inputs/self-contained-type-comment.ll --check-prefix=COMMENT --implicit-check-not="Stack dump"
; RUN: %expect-exit 1 llquote-fmt -D 'T=[4 x %"in array"]' %S/Inputs/self-contained-type-spliced.ll 2>&1 \
; RUN:   | FileCheck %S/Inputs/self-contained-type-spliced.ll --check-prefix=SPLICED --implicit-check-not="Stack dump"

%List = type { ptr, i32, %List* }
%Tree = type { [2 x %Tree*], { i64, %List } }
; CHECK: self-contained-type.ll:[[@LINE+1]]:1: error: '%Outer' contains '%Self', which contains itself, not a pointer to itself: such a type has no size, and LLVM cannot use it
%Outer = type <{ i8, %Self }>
%Self = type { i32, %Wrap }
%Wrap = type { [2 x %Self] }

define ptr @f(ptr %p) {
  %q = getelementptr inbounds { %Wrap }, ptr %p
  ret ptr %q
}
