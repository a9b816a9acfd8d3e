; Without bindings, an antiquote is unbound, and says which one.
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
; CHECK: [[@LINE+1]]:8: error: unbound antiquote '$type:elt'
define $type:elt @first(ptr %p) {
  ret i32 0
}
