; An antiquote the grammar reads but has no place for is an error at the
; antiquote, bound or not: never dropped without a word.
; RUN: %expect-exit 1 llquote-fmt %s 2>&1 | FileCheck %s
; RUN: %expect-exit 1 llquote-fmt -D lo=-1 -D hi=8 %s 2>&1 | FileCheck %s
; Antiquotes in a uselistorder's index list are in the tree: unbound here,
; spliced when bound.
; RUN: %expect-exit 1 llquote-fmt %S/Inputs/antiquote-uselistorder.ll 2>&1 \
; RUN:   | FileCheck %S/Inputs/antiquote-uselistorder.ll --check-prefix=UNBOUND
; RUN: llquote-fmt -D second=1 %S/Inputs/antiquote-uselistorder.ll \
; RUN:   | FileCheck %S/Inputs/antiquote-uselistorder.ll --check-prefix=BOUND

@g = global [4 x i32] zeroinitializer
; CHECK: antiquote-placement.ll:[[@LINE+1]]:48: error: antiquote '$const:lo' cannot stand here
@p = global ptr getelementptr inbounds inrange($const:lo, $const:hi) ([4 x i32], ptr @g, i64 0, i64 1)
