; An antiquote among a target type's arguments is spliced when bound and
; named when not.
; RUN: llquote-fmt -D elt=i32 %s | FileCheck %s
; RUN: %expect-exit 1 llquote-fmt %s 2>&1 | FileCheck %s --check-prefix=UNBOUND

; CHECK: define void @f(target("spirv.Image", i32, 1) %x)
; UNBOUND: target-type.ll:[[@LINE+1]]:38: error: unbound antiquote '$type:elt'
define void @f(target("spirv.Image", $type:elt, 1) %x) {
  ret void
}
