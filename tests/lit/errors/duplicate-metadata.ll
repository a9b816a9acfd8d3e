; A numbered metadata id defined twice is refused at the second definition,
; with a note at the first. LLVM 19 refuses it too, but when the first
; definition still waits for forward references it frees nodes twice as the
; context goes; llquote refuses the duplicate before LLVM reads the text.
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not=AddressSanitizer
; CHECK: duplicate-metadata.ll:[[@LINE+4]]:1: error: metadata id '!5' is already used
; CHECK: duplicate-metadata.ll:[[@LINE+1]]:1: note: '!5' is first defined here
!5 = !DICompositeType(tag: DW_TAG_structure_type, name: "t", file: !1, line: 2, size: 64, align: 32, identifier: "uuid")
!7 = !DIDerivedType(tag: DW_TAG_member, name: "f", scope: !5, file: !1, line: 4, baseType: !0, size: 32, align: 32, offset: 32)
!5 = !DICompositeType(tag: DW_TAG_structure_type, name: "t", file: !2, line: 2, size: 64, align: 32, identifier: "uuid")
