//===- FrontendTest.cpp - Unit tests of the llquote front end -------------===//
//
// Plain LLVM IR in, the module LLVM would build out; every error located in
// the text the user wrote, whichever stage found it.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include <doctest/doctest.h>

using namespace llq::test;
using namespace llvm;

namespace {

/// The module LLVM's own assembler builds from \p Source.
std::string reference(StringRef Source) {
  LLVMContext Ctx;
  SMDiagnostic Diag;
  auto M = parseAssemblyString(Source, Diag, Ctx);
  REQUIRE(M);
  M->setModuleIdentifier("input.ll");
  M->setSourceFileName("input.ll");
  return printModule(*M);
}
} // namespace

TEST_CASE("plain_ir_becomes_the_module_llvm_builds") {
  const char *Src = R"(
%pair = type { i32, float }
@g = internal global %pair zeroinitializer, align 8
declare i32 @ext(i32, ...)

define i32 @f(i32 %a, ptr %p) #0 {
entry:
  %sum = add nsw i32 %a, 1
  %q = getelementptr inbounds %pair, ptr %p, i64 0, i32 1
  %v = load float, ptr %q, align 4
  %c = fcmp olt float %v, 0.0
  br i1 %c, label %neg, label %done
neg:
  %r = call i32 (i32, ...) @ext(i32 %sum, float %v)
  br label %done
done:
  %res = phi i32 [ %sum, %entry ], [ %r, %neg ]
  ret i32 %res
}
attributes #0 = { nounwind "frame-pointer"="all" }
)";
  Outcome O = run(Src);
  REQUIRE(O.ok());
  CHECK(printModule(*O.M) == reference(Src));
  CHECK_FALSE(verifyModule(*O.M, &errs()));
}

TEST_CASE("value_names_numbering_and_forward_references_are_kept") {
  // The branch names its target before the block exists.
  Outcome O = run(R"(
define i32 @g(i32 %0) {
  %2 = add i32 %0, 1
  br label %"odd name"
"odd name":
  %later = add i32 %2, 2
  %"x y" = mul i32 %2, %later
  ret i32 %"x y"
}
)");
  REQUIRE(O.ok());
  Function *F = O.M->getFunction("g");
  REQUIRE(F);
  BasicBlock &BB = *std::next(F->begin());
  CHECK(BB.getName() == "odd name");
  CHECK(BB.front().getName() == "later");
  CHECK(std::next(BB.begin())->getName() == "x y");
  CHECK(F->getArg(0)->getName().empty());
}

TEST_CASE("syntax_error_is_located_at_the_offending_token") {
  Outcome O = run("define void @f() {\n  %x = add i32 1 2\n  ret void\n}\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Located);
  CHECK(O.Line == 2);
  CHECK(O.Column == 17);
  CHECK(O.Message == "expected ',', found integer '2'");
  CHECK(O.Printed.find("input.ll:2:18: error: expected ','") == 0);
  CHECK(O.Printed.find("  %x = add i32 1 2\n                 ^") != std::string::npos);
}

TEST_CASE("llvm_semantic_error_maps_back_to_the_source") {
  Outcome O = run("define i32 @f() {\n  ret i32 %nope\n}\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == 2);
  CHECK(O.Column == 10);
  CHECK(O.Message == "use of undefined value '%nope'");
}

TEST_CASE("type_mismatch_reported_by_llvm_at_the_use") {
  Outcome O = run("define i32 @f(i64 %a) {\n  %b = add i32 %a, 1\n  ret i32 %b\n}\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == 2);
  CHECK(O.Message == "'%a' defined with type 'i64' but expected 'i32'");
}

TEST_CASE("verifier_error_is_located_at_the_instruction") {
  // Well-formed text, but only a phi may use its own value.
  const char *Src = "define i32 @f(i32 %a) {\n"
                    "entry:\n"
                    "  %x = add i32 %a, 1\n"
                    "  %y = add i32 %y, %x\n"
                    "  ret i32 %y\n"
                    "}\n";
  Outcome O = run(Src);
  REQUIRE_FALSE(O.ok());
  CHECK(O.Located);
  CHECK(O.Line == 4);
  CHECK(O.Column == 2);
  CHECK(O.Message == "Only PHI nodes may reference their own value!");
}

TEST_CASE("lexer_error_outranks_the_syntax_error_it_causes") {
  Outcome O = run("@s = global [3 x i8] c\"ab\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Message == "end of file in string constant");
  CHECK(O.Line == 1);
  CHECK(O.Column == 22);
}

TEST_CASE("earliest_error_wins_when_llvm_finds_one_first") {
  // Line 2 is well-formed but ill-typed; line 3 is a syntax error.
  Outcome O = run("define ptr @f(i32 %a) {\n"
                  "  %g = getelementptr i32, i32 %a, i32 1\n"
                  "  return ptr %g\n"
                  "}\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == 2);
  CHECK(O.Message == "base of getelementptr must be a pointer");
}

TEST_CASE("unbound_antiquote_is_named") {
  Outcome O = run("define $type:ret @f() {\n  ret $type:ret 0\n}\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == 1);
  CHECK(O.Column == 7);
  CHECK(O.Message == "unbound antiquote '$type:ret'");
}

TEST_CASE("unknown_antiquote_kind_lists_the_kinds") {
  Outcome O = run("define void @f() {\n  $typo:x\n}\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == 2);
  CHECK(O.Message.find("unknown antiquote kind 'typo'") == 0);
}

TEST_CASE("dollar_inside_strings_is_not_an_antiquote") {
  Outcome O = run("define i32 @f(i32 %x) {\n"
                  "  %r = call i32 asm \"bswap $0\", \"=r,r\"(i32 %x)\n"
                  "  ret i32 %r\n}\n");
  REQUIRE(O.ok());
}

TEST_CASE("typed_pointer_syntax_reads_as_ptr_like_llvm") {
  Outcome O = run("define i32 @f(i32* %p) {\n  %v = load i32, i32* %p\n  ret i32 %v\n}\n");
  REQUIRE(O.ok());
  CHECK(O.M->getFunction("f")->getArg(0)->getType()->isPointerTy());
}

TEST_CASE("debug_records_and_metadata_round_trip") {
  const char *Src = R"(
define void @f(i32 %x) !dbg !4 {
entry:
    #dbg_value(i32 %x, !8, !DIExpression(), !9)
  ret void, !dbg !9
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "t", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "t.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !5, scopeLine: 1, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0)
!5 = !DISubroutineType(types: !6)
!6 = !{null, !7}
!7 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!8 = !DILocalVariable(name: "x", arg: 1, scope: !4, file: !1, line: 1, type: !7)
!9 = !DILocation(line: 1, column: 1, scope: !4)
)";
  Outcome O = run(Src);
  REQUIRE(O.ok());
  CHECK(printModule(*O.M) == reference(Src));
}

TEST_CASE("diagnostic_error_prints_in_llvm_format") {
  Outcome O = run("@x = global i32 0\n@x = global i32 1\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Printed.rfind("input.ll:2:1: error: redefinition of global '@x'", 0) == 0);
}
