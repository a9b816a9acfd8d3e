; Many possible tokens fold into one word: "type", "value", "instruction".
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
define void @f() {
; CHECK: [[@LINE+1]]:7: error: expected type, 'void' or 'metadata', found keyword 'vo'
  ret vo
}
