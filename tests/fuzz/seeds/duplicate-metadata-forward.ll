!5 = !DICompositeType(tag: DW_TAG_structure_type, name: "has-uuid", file: !1, line: 2, size: 64, align: 32, identifier: "uuid")
!7 = !DIDerivedType(tag: DW_TAG_member, name: "field2", scope: !5, file: !1, line: 4, baseType: !0, size: 32, align: 32, offset: 32)
!5 = !DICompositeType(tag: DW_TAG_structure_type, name: "has-uuid", file: !2, line: 2, size: 64, align: 32, identifier: "uuid")