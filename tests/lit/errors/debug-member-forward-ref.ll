; Debug metadata of one shape (a member whose scope is a composite type with
; an identifier, beside another composite of that identifier) is left broken
; by LLVM 19's reader when it fails while the metadata waits for forward
; references: destroying the context then crashes, as llvm-as-19 does.
; llquote reads such text into a context of its own first and keeps that
; context when LLVM fails, so the error is all that comes out.
; RUN: %expect-exit 1 llquote-fmt %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump"
; CHECK: debug-member-forward-ref.ll:[[@LINE+2]]:{{[0-9]+}}: error: use of undefined metadata '!0'
!5 = !DICompositeType(tag: DW_TAG_structure_type, name: "t", file: !1, line: 2, size: 64, align: 32, identifier: "uuid")
!7 = !DIDerivedType(tag: DW_TAG_member, name: "f", scope: !5, baseType: !0)
!4 = !DICompositeType(tag: DW_TAG_structure_type, name: "t", line: 2, size: 64, align: 32, identifier: "uuid")
