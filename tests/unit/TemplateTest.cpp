//===- TemplateTest.cpp - Antiquotes, bindings and LLQ_SKELETON -----------===//
//
// A spliced quote must equal the literal quote: for every antiquote kind, the
// module instantiated from a template with a binding prints exactly like the
// module written out by hand.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "llquote/Template.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include <doctest/doctest.h>
#include <thread>

using namespace llq;
using namespace llvm;
using llq::test::printModule;

namespace {

/// The module of \p Quote with \p B bound, printed; or the error's text.
std::string spliced(LLVMContext &Ctx, StringRef Quote, const Bindings &B) {
  Template T(Quote, "test.cpp", 10, 5);
  auto M = T.instantiate(Ctx, B);
  if (!M)
    return "error: " + toString(M.takeError());
  (*M)->setModuleIdentifier("q");
  (*M)->setSourceFileName("q");
  return printModule(**M);
}

std::string literal(LLVMContext &Ctx, StringRef Text) {
  auto M = parseModuleString(Text, "q", Ctx);
  REQUIRE(static_cast<bool>(M));
  (*M)->setSourceFileName("q");
  return printModule(**M);
}

std::string firstError(Expected<std::unique_ptr<Module>> M) {
  REQUIRE_FALSE(static_cast<bool>(M));
  std::string S;
  handleAllErrors(M.takeError(), [&](const DiagnosticError &D) {
    raw_string_ostream OS(S);
    D.print(OS);
  });
  return S;
}
} // namespace

TEST_CASE("spliced_type_equals_literal_type") {
  LLVMContext Ctx;
  Type *V4 = FixedVectorType::get(Type::getFloatTy(Ctx), 4);
  CHECK(spliced(Ctx, "define $type:t @f($type:t %x) {\n  ret $type:t %x\n}\n",
                {{"t", V4}}) ==
        literal(Ctx, "define <4 x float> @f(<4 x float> %x) {\n  ret <4 x float> %x\n}\n"));
}

TEST_CASE("spliced_constants_equal_literal_constants") {
  LLVMContext Ctx;
  const char *Quote = "define i64 @f() {\n  %a = add i64 $const:i, $const:c\n"
                      "  %b = fadd double $const:d, $const:fl\n"
                      "  %s = select i1 $const:t, i64 %a, i64 0\n  ret i64 %s\n}\n";
  Bindings B{{"i", -7}, {"c", ConstantInt::get(Type::getInt64Ty(Ctx), 9)},
             {"d", 0.1}, {"fl", 1.5f}, {"t", true}};
  CHECK(spliced(Ctx, Quote, B) ==
        literal(Ctx, "define i64 @f() {\n  %a = add i64 -7, 9\n"
                     "  %b = fadd double 0x3FB999999999999A, 1.5\n"
                     "  %s = select i1 true, i64 %a, i64 0\n  ret i64 %s\n}\n"));
}

TEST_CASE("spliced_names_equal_literal_names") {
  LLVMContext Ctx;
  const char *Quote = "define i32 $gid:fn(i32 $id:arg) {\n$label:top\n"
                      "  br label $label:top2\n$label:top2\n  ret i32 $opr:arg2\n}\n";
  Bindings B{{"fn", "my fn"}, {"arg", "x"}, {"top", "start"}, {"top2", "next"},
             {"arg2", "x"}};
  CHECK(spliced(Ctx, Quote, B) ==
        literal(Ctx, "define i32 @\"my fn\"(i32 %x) {\nstart:\n  br label %next\n"
                     "next:\n  ret i32 %x\n}\n"));
}

TEST_CASE("spliced_layout_and_triple_equal_literal_ones") {
  LLVMContext Ctx;
  DataLayout DL("e-m:e-i64:64-n8:16:32:64-S128");
  Triple TT("x86_64-unknown-linux-gnu");
  CHECK(spliced(Ctx, "target datalayout = $dl:dl\ntarget triple = $tt:tt\n",
                {{"dl", DL}, {"tt", TT}}) ==
        literal(Ctx, "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n"
                     "target triple = \"x86_64-unknown-linux-gnu\"\n"));
}

TEST_CASE("spliced_fragments_equal_literal_text") {
  LLVMContext Ctx;
  const char *Quote = "$defs:decls\ndefine i32 @f(i32 %n, $params:ps) {\n"
                      "  $instrs:body\n  %r = call i32 @g($args:as)\n  ret i32 %r\n}\n";
  Bindings B{
      {"decls", std::vector<Binding>{Fragment("declare i32 @g(i32, i64)"),
                                     Fragment("@k = global i32 3")}},
      {"ps", std::vector<Binding>{"i64 %m", "ptr %p"}},
      {"body", Fragment("%t = add i32 %n, 1")},
      {"as", std::vector<Binding>{"i32 %t", ConstantInt::get(Type::getInt64Ty(Ctx), 4)}}};
  CHECK(spliced(Ctx, Quote, B) ==
        literal(Ctx, "declare i32 @g(i32, i64)\n@k = global i32 3\n"
                     "define i32 @f(i32 %n, i64 %m, ptr %p) {\n  %t = add i32 %n, 1\n"
                     "  %r = call i32 @g(i32 %t, i64 4)\n  ret i32 %r\n}\n"));
}

TEST_CASE("spliced_singular_fragments_equal_literal_text") {
  // $def:, $bb:, $instr: and $param: take one piece each.
  LLVMContext Ctx;
  const char *Quote = "$def:g\ndefine i32 @f($param:p) {\nentry:\n  $instr:i\n"
                      "  br label %next\n  $bb:b\n}\n";
  Bindings B{{"g", Fragment("@g = global i32 1")},
             {"p", "i32 %a"},
             {"i", Fragment("%t = add i32 %a, 1")},
             {"b", Fragment("next:\n  ret i32 %t")}};
  CHECK(spliced(Ctx, Quote, B) ==
        literal(Ctx, "@g = global i32 1\ndefine i32 @f(i32 %a) {\nentry:\n"
                     "  %t = add i32 %a, 1\n  br label %next\nnext:\n  ret i32 %t\n}\n"));
}

TEST_CASE("fragment_may_use_control_structures_and_reassign") {
  // SSA form is built after splicing, so the fragment's loop over the
  // template's variable becomes phis.
  LLVMContext Ctx;
  const char *Quote = "define i64 @f(i64 %n) {\nentry:\n  %acc = i64 0\n  $bbs:loop\n"
                      "  ret i64 %acc\n}\n";
  Fragment Loop("for i64 %i in 0 to %n {\n  %acc = add i64 %acc, %i\n}",
                /*Outputs=*/{"acc"});
  std::string Out = spliced(Ctx, Quote, {{"loop", Loop}});
  CHECK(Out.find("%acc.1 = phi i64 [ 0, %entry ], [ %acc.2, %for.inc ]") !=
        std::string::npos);
  CHECK(Out.find("ret i64 %acc.1") != std::string::npos);
}

TEST_CASE("fragment_capturing_a_template_variable_is_an_error") {
  // The fragment's scratch %t would silently become the template's %t.
  LLVMContext Ctx;
  Template T("define i64 @f(i64 %t) {\n  $instrs:body\n  ret i64 %t\n}\n", "k.cpp", 1);
  std::string E = firstError(T.instantiate(
      Ctx, {{"body", Fragment("%t = mul i64 %t, 2\n%u = add i64 %t, 1")}}));
  CHECK(E.find("k.cpp:2:3: error: the fragment bound to 'body' defines '%t', "
               "which the template also uses") == 0);
  CHECK(E.find("k.cpp:1:19: note: the template's '%t' is here") != std::string::npos);
  // The definition's '=' may stand on the next line, as LLVM allows.
  E = firstError(T.instantiate(
      Ctx, {{"body", Fragment("%t\n    = mul i64 %t, 2\n%u = add i64 %t, 1")}}));
  CHECK(E.find("k.cpp:2:3: error: the fragment bound to 'body' defines '%t', "
               "which the template also uses") == 0);
  // Written in a comment or a string, it defines nothing.
  auto Commented = T.instantiate(
      Ctx, {{"body", Fragment("; %t = 0\n%u = add i64 %t, 1")}});
  CHECK(static_cast<bool>(Commented));
  if (!Commented)
    consumeError(Commented.takeError());
  // Listed as an output, the same fragment assigns the template's %t.
  auto M = T.instantiate(Ctx, {{"body", Fragment("%t = mul i64 %t, 2", {"t"})}});
  CHECK(static_cast<bool>(M));
}

TEST_CASE("error_in_a_fragment_notes_where_it_was_written") {
  LLVMContext Ctx;
  Template T("define i64 @f(i64 %n) {\n  $instrs:body\n  ret i64 %n\n}\n", "k.cpp", 1);
  Fragment Bad = LLQ_FRAGMENT("%t = add i32 %n, 1");
  std::string E = firstError(T.instantiate(Ctx, {{"body", Bad}}));
  CHECK(E.find("k.cpp:2:3: error: '%n' defined with type 'i64' but expected 'i32'") == 0);
  CHECK(E.find(std::string(__FILE__) + ":" + std::to_string(__LINE__ - 3) +
               ": note: the text bound to 'body' is written here") != std::string::npos);
}

TEST_CASE("unbound_antiquote_is_named_at_the_cpp_position") {
  LLVMContext Ctx;
  Template T("define $type:elt @f() {\n  ret $type:elt 0\n}\n", "kernels.cpp", 40, 7);
  std::string E = firstError(T.instantiate(Ctx, {}));
  // Line 1 of the template is line 40 of the file, starting at column 7.
  CHECK(E.find("kernels.cpp:40:14: error: unbound antiquote '$type:elt': "
               "nothing is bound to 'elt'") == 0);
}

TEST_CASE("binding_of_the_wrong_kind_says_what_was_expected") {
  LLVMContext Ctx;
  Template T("define void @f() {\n  %x = add $type:t 1, 2\n  ret void\n}\n",
             "k.cpp", 3);
  std::string E = firstError(T.instantiate(Ctx, {{"t", 32}}));
  CHECK(E.find("k.cpp:4:12: error: antiquote '$type:t' takes an llvm::Type* or a type fragment, "
               "but 't' is bound to an integer") == 0);
}

TEST_CASE("value_that_does_not_fit_is_reported_at_the_antiquote") {
  LLVMContext Ctx;
  Template T("define float @f() {\n  ret float $const:c\n}\n", "k.cpp", 1);
  std::string E = firstError(T.instantiate(Ctx, {{"c", 0.1}}));
  CHECK(E.find("k.cpp:2:13: error: floating point constant invalid for type") == 0);
}

TEST_CASE("type_error_after_splicing_points_into_the_template") {
  LLVMContext Ctx;
  Template T("define i32 @f(i64 %a) {\n  %b = add $type:t %a, 1\n  ret i32 %b\n}\n",
             "k.cpp", 20);
  std::string E = firstError(T.instantiate(Ctx, {{"t", Type::getInt32Ty(Ctx)}}));
  CHECK(E.find("k.cpp:21:20: error: '%a' defined with type 'i64' but expected 'i32'") == 0);
}

TEST_CASE("syntax_error_in_the_template_is_reported_by_check") {
  Template T("define void @f() {\n  ret void void\n}\n", "bad.cpp", 5, 30);
  Error E = T.check();
  REQUIRE(static_cast<bool>(E));
  std::string S = toString(std::move(E));
  CHECK(S.find("bad.cpp:6:12: error:") == 0);
}

TEST_CASE("llq_skeleton_records_its_file_and_line") {
  LLVMContext Ctx;
  static const Template T = LLQ_SKELETON(R"(
define i32 @answer() {
  ret i32 $const:v
})");
  auto M = T.instantiate(Ctx, {{"v", 42}});
  REQUIRE(static_cast<bool>(M));
  std::string E = firstError(T.instantiate(Ctx, {}));
  // The text starts with a newline, so its lines are the C++ lines after the
  // macro's: `ret` is two lines below LLQ_SKELETON, eight above the CHECK.
  INFO(E);
  CHECK(E.find(std::string(__FILE__) + ":" + std::to_string(__LINE__ - 8) +
               ":11: error: unbound antiquote '$const:v'") == 0);
}

TEST_CASE("concurrent_instantiations_of_one_template") {
  static const Template T = LLQ_SKELETON(R"(
define $type:t @id($type:t %x) {
  %y = add $type:t %x, $const:k
  ret $type:t %y
})");
  std::vector<std::thread> Threads;
  std::vector<int> Ok(8, 0);
  for (int I = 0; I < 8; ++I)
    Threads.emplace_back([&, I] {
      LLVMContext Ctx;
      auto M = T.instantiate(Ctx, {{"t", Type::getIntNTy(Ctx, 8 + I)}, {"k", I}});
      Ok[I] = M && (*M)->getFunction("id")->getReturnType()->getIntegerBitWidth() ==
                       unsigned(8 + I);
    });
  for (std::thread &Th : Threads)
    Th.join();
  CHECK(std::count(Ok.begin(), Ok.end(), 1) == 8);
}

TEST_CASE("an_error_at_an_antiquote_notes_what_is_bound_there") {
  LLVMContext Ctx;
  Template T("define float @f() {\n  %x = fadd float $opr:c, 1.0\n  ret float %x\n}\n",
             "k.cpp", 7);
  auto M = T.instantiate(Ctx, {{"c", ConstantInt::get(Type::getInt64Ty(Ctx), 5)}});
  REQUIRE(!M);
  std::string E = toString(M.takeError());
  CHECK(E.find("k.cpp:8:19: error: ") == 0);
  CHECK(E.find("note: 'c' is bound to the constant 'i64 5'") != std::string::npos);
}

// Found by fuzz.template (a conformance file, instantiated into a module):
// LLVM's verifier crashed printing a debug record whose variable is `!{}`.
// Broken debug info is dropped with a warning, as a module template does.
TEST_CASE("definitions_with_broken_debug_info_do_not_crash_the_verifier") {
  Template T(R"(
declare void @llvm.dbg.value(metadata, metadata, metadata)
define void @f() {
  call void @llvm.dbg.value(metadata i32 0, metadata !{}, metadata !DIExpression())
  ret void
}
)", "broken-debug.ll", 1, 1, Granularity::Definitions);
  LLVMContext Ctx;
  Ctx.setDiagnosticHandlerCallBack([](const DiagnosticInfo *, void *) {});
  Module M("host", Ctx);
  Expected<std::vector<GlobalValue *>> Added = T.instantiateInto(M);
  REQUIRE_MESSAGE(bool(Added), toString(Added.takeError()));
  CHECK(!verifyModule(M, &errs()));
}
