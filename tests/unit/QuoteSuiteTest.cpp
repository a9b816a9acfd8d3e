//===- QuoteSuiteTest.cpp - The quasi-quoter's test suite, in LLVM 19 -----===//
//
// The test suite of the Haskell quasi-quoter this project descends from,
// restated in LLVM 19 syntax: constants, data layouts, every instruction,
// terminators, constant expressions, inline asm and metadata. Each case
// writes a quote with antiquotes, binds them, and requires the module to
// print exactly like the same module written out literally.
//
//===----------------------------------------------------------------------===//

#include "llquote/Template.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/Support/raw_ostream.h"
#include <doctest/doctest.h>
#include <functional>

using namespace llq;
using namespace llvm;

namespace {
struct Case {
  const char *Name;
  const char *Quote;
  std::function<Bindings(LLVMContext &)> Bind;
  const char *Literal;
};

std::string printed(Expected<std::unique_ptr<Module>> M) {
  if (!M)
    return "error: " + toString(M.takeError());
  (*M)->setModuleIdentifier("q");
  (*M)->setSourceFileName("q");
  std::string S;
  raw_string_ostream OS(S);
  (*M)->print(OS, nullptr);
  return S;
}

Type *i32(LLVMContext &C) { return Type::getInt32Ty(C); }
Type *f32(LLVMContext &C) { return Type::getFloatTy(C); }

const Case Cases[] = {
    // Constants.
    {"integer_constants", "@a = global $type:t $const:c\n@b = global i8 $const:d\n",
     [](LLVMContext &C) -> Bindings { return {{"t", Type::getInt64Ty(C)}, {"c", -42}, {"d", 200u}}; },
     "@a = global i64 -42\n@b = global i8 200\n"},
    {"float_constants", "@a = global float $const:f\n@b = global double $const:d\n",
     [](LLVMContext &) -> Bindings { return {{"f", 0.5f}, {"d", 3.25}}; },
     "@a = global float 5.000000e-01\n@b = global double 3.250000e+00\n"},
    {"null_undef_poison_zero", "@a = global ptr $const:n\n@b = global i32 $const:u\n@c = global [2 x i32] $const:z\n",
     [](LLVMContext &C) -> Bindings {
       return {{"n", ConstantPointerNull::get(PointerType::get(C, 0))},
               {"u", UndefValue::get(i32(C))},
               {"z", ConstantAggregateZero::get(ArrayType::get(i32(C), 2))}};
     },
     "@a = global ptr null\n@b = global i32 undef\n@c = global [2 x i32] zeroinitializer\n"},
    {"aggregate_constants", "@s = global { i32, float } $const:s\n@v = global <2 x i32> $const:v\n",
     [](LLVMContext &C) -> Bindings {
       auto *S = StructType::get(i32(C), f32(C));
       return {{"s", ConstantStruct::get(S, {ConstantInt::get(i32(C), 1), ConstantFP::get(f32(C), 2.0)})},
               {"v", ConstantVector::get({ConstantInt::get(i32(C), 3), ConstantInt::get(i32(C), 4)})}};
     },
     "@s = global { i32, float } { i32 1, float 2.0 }\n@v = global <2 x i32> <i32 3, i32 4>\n"},
    {"string_constant", "@s = constant [3 x i8] $const:s\n",
     [](LLVMContext &C) -> Bindings { return {{"s", ConstantDataArray::getString(C, "hi")}}; },
     "@s = constant [3 x i8] c\"hi\\00\"\n"},
    // Data layouts and triples.
    {"data_layout", "target datalayout = $dl:d\n",
     [](LLVMContext &) -> Bindings { return {{"d", DataLayout("e-p:32:32-i64:64")}}; },
     "target datalayout = \"e-p:32:32-i64:64\"\n"},
    {"target_triple", "target triple = $tt:t\n",
     [](LLVMContext &) -> Bindings { return {{"t", Triple("aarch64-unknown-linux-gnu")}}; },
     "target triple = \"aarch64-unknown-linux-gnu\"\n"},
    // Instructions.
    {"binary_operations",
     "define $type:t @f($type:t %a, $type:t %b) {\n  %1 = add nuw $type:t %a, %b\n  %2 = sub nsw $type:t %1, $const:k\n"
     "  %3 = mul $type:t %2, %a\n  %4 = udiv exact $type:t %3, %b\n  %5 = sdiv $type:t %4, %b\n  %6 = urem $type:t %5, %b\n"
     "  %7 = srem $type:t %6, %b\n  %8 = shl $type:t %7, 1\n  %9 = lshr $type:t %8, 1\n  %10 = ashr $type:t %9, 1\n"
     "  %11 = and $type:t %10, %a\n  %12 = or disjoint $type:t %11, 0\n  %13 = xor $type:t %12, %b\n  ret $type:t %13\n}\n",
     [](LLVMContext &C) -> Bindings { return {{"t", i32(C)}, {"k", 7}}; },
     "define i32 @f(i32 %a, i32 %b) {\n  %1 = add nuw i32 %a, %b\n  %2 = sub nsw i32 %1, 7\n  %3 = mul i32 %2, %a\n"
     "  %4 = udiv exact i32 %3, %b\n  %5 = sdiv i32 %4, %b\n  %6 = urem i32 %5, %b\n  %7 = srem i32 %6, %b\n"
     "  %8 = shl i32 %7, 1\n  %9 = lshr i32 %8, 1\n  %10 = ashr i32 %9, 1\n  %11 = and i32 %10, %a\n"
     "  %12 = or disjoint i32 %11, 0\n  %13 = xor i32 %12, %b\n  ret i32 %13\n}\n"},
    {"float_operations",
     "define $type:t @f($type:t %a) {\n  %1 = fadd fast $type:t %a, $const:k\n  %2 = fsub $type:t %1, %a\n  %3 = fmul nnan $type:t %2, %a\n"
     "  %4 = fdiv $type:t %3, %a\n  %5 = frem $type:t %4, %a\n  %6 = fneg $type:t %5\n  ret $type:t %6\n}\n",
     [](LLVMContext &C) -> Bindings { return {{"t", Type::getDoubleTy(C)}, {"k", 1.0}}; },
     "define double @f(double %a) {\n  %1 = fadd fast double %a, 1.0\n  %2 = fsub double %1, %a\n  %3 = fmul nnan double %2, %a\n"
     "  %4 = fdiv double %3, %a\n  %5 = frem double %4, %a\n  %6 = fneg double %5\n  ret double %6\n}\n"},
    {"comparisons_select_freeze",
     "define i32 @f(i32 %a, float %x) {\n  %c = icmp $id:(unused) slt i32 %a, $opr:b\n  %d = fcmp olt float %x, 0.0\n"
     "  %e = and i1 %c, %d\n  %s = select i1 %e, i32 %a, i32 $opr:b\n  %z = freeze i32 %s\n  ret i32 %z\n}\n",
     [](LLVMContext &) -> Bindings { return {{"b", 5}, {"unused", "x"}}; }, nullptr},
    {"casts",
     "define i64 @f(i32 %a, ptr %p, double %d) {\n  %1 = zext nneg i32 %a to $type:w\n  %2 = sext i32 %a to $type:w\n"
     "  %3 = trunc nuw $type:w %1 to i16\n  %4 = fptosi double %d to $type:w\n  %5 = sitofp $type:w %4 to float\n"
     "  %6 = fpext float %5 to double\n  %7 = fptrunc double %6 to float\n  %8 = ptrtoint ptr %p to $type:w\n"
     "  %9 = inttoptr $type:w %8 to ptr\n  %10 = bitcast ptr %9 to ptr\n  %11 = addrspacecast ptr %10 to ptr addrspace(1)\n"
     "  %12 = uitofp i16 %3 to double\n  %13 = fptoui double %12 to $type:w\n  ret $type:w %13\n}\n",
     [](LLVMContext &C) -> Bindings { return {{"w", Type::getInt64Ty(C)}}; },
     "define i64 @f(i32 %a, ptr %p, double %d) {\n  %1 = zext nneg i32 %a to i64\n  %2 = sext i32 %a to i64\n"
     "  %3 = trunc nuw i64 %1 to i16\n  %4 = fptosi double %d to i64\n  %5 = sitofp i64 %4 to float\n"
     "  %6 = fpext float %5 to double\n  %7 = fptrunc double %6 to float\n  %8 = ptrtoint ptr %p to i64\n"
     "  %9 = inttoptr i64 %8 to ptr\n  %10 = bitcast ptr %9 to ptr\n  %11 = addrspacecast ptr %10 to ptr addrspace(1)\n"
     "  %12 = uitofp i16 %3 to double\n  %13 = fptoui double %12 to i64\n  ret i64 %13\n}\n"},
    {"memory_operations",
     "define void @f(ptr %p) {\n  %a = alloca $type:t, align 4\n  store $type:t $const:v, ptr %a\n  %l = load volatile $type:t, ptr %a\n"
     "  %g = getelementptr inbounds [4 x $type:t], ptr %p, i64 0, i64 2\n  store atomic $type:t %l, ptr %g release, align 4\n"
     "  fence syncscope(\"singlethread\") acquire\n  %x = cmpxchg weak ptr %g, $type:t 0, $type:t %l seq_cst monotonic\n"
     "  %r = atomicrmw add ptr %g, $type:t 1 acq_rel\n  ret void\n}\n",
     [](LLVMContext &C) -> Bindings { return {{"t", i32(C)}, {"v", 9}}; },
     "define void @f(ptr %p) {\n  %a = alloca i32, align 4\n  store i32 9, ptr %a\n  %l = load volatile i32, ptr %a\n"
     "  %g = getelementptr inbounds [4 x i32], ptr %p, i64 0, i64 2\n  store atomic i32 %l, ptr %g release, align 4\n"
     "  fence syncscope(\"singlethread\") acquire\n  %x = cmpxchg weak ptr %g, i32 0, i32 %l seq_cst monotonic\n"
     "  %r = atomicrmw add ptr %g, i32 1 acq_rel\n  ret void\n}\n"},
    {"vector_and_aggregate_operations",
     "define float @f(<4 x float> %v, { i32, float } %s) {\n  %e = extractelement <4 x float> %v, i32 $const:i\n"
     "  %w = insertelement <4 x float> %v, float %e, i32 0\n  %sh = shufflevector <4 x float> %w, <4 x float> poison, <2 x i32> <i32 1, i32 0>\n"
     "  %x = extractvalue { i32, float } %s, 1\n  %t = insertvalue { i32, float } %s, float %x, 1\n  ret float %x\n}\n",
     [](LLVMContext &) -> Bindings { return {{"i", 3}}; },
     "define float @f(<4 x float> %v, { i32, float } %s) {\n  %e = extractelement <4 x float> %v, i32 3\n"
     "  %w = insertelement <4 x float> %v, float %e, i32 0\n  %sh = shufflevector <4 x float> %w, <4 x float> poison, <2 x i32> <i32 1, i32 0>\n"
     "  %x = extractvalue { i32, float } %s, 1\n  %t = insertvalue { i32, float } %s, float %x, 1\n  ret float %x\n}\n"},
    {"calls_and_va_arg",
     "declare i32 @g(i32, ...)\ndefine i32 @f(ptr %ap) {\n  %r = tail call i32 (i32, ...) $gid:callee($args:as)\n"
     "  %v = va_arg ptr %ap, i32\n  ret i32 %r\n}\n",
     [](LLVMContext &C) -> Bindings {
       return {{"callee", "g"}, {"as", std::vector<Binding>{ConstantInt::get(i32(C), 1), "double 2.0"}}};
     },
     "declare i32 @g(i32, ...)\ndefine i32 @f(ptr %ap) {\n  %r = tail call i32 (i32, ...) @g(i32 1, double 2.0)\n"
     "  %v = va_arg ptr %ap, i32\n  ret i32 %r\n}\n"},
    {"phi_of_antiquoted_labels",
     "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label $label:a, label $label:b\n$label:a\n  br label %j\n$label:b\n  br label %j\n"
     "j:\n  %r = phi i32 [ 1, $label:a ], [ 2, $label:b ]\n  ret i32 %r\n}\n",
     [](LLVMContext &) -> Bindings { return {{"a", "yes"}, {"b", "no"}}; },
     "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %yes, label %no\nyes:\n  br label %j\nno:\n  br label %j\n"
     "j:\n  %r = phi i32 [ 1, %yes ], [ 2, %no ]\n  ret i32 %r\n}\n"},
    // Terminators.
    {"switch_indirectbr_unreachable",
     "define void @f(i32 %x, ptr %t) {\nentry:\n  switch $type:t %x, label %d [\n    $type:t $const:k, label %a\n  ]\n"
     "a:\n  indirectbr ptr %t, [label %d]\nd:\n  unreachable\n}\n",
     [](LLVMContext &C) -> Bindings { return {{"t", i32(C)}, {"k", 4}}; },
     "define void @f(i32 %x, ptr %t) {\nentry:\n  switch i32 %x, label %d [\n    i32 4, label %a\n  ]\n"
     "a:\n  indirectbr ptr %t, [label %d]\nd:\n  unreachable\n}\n"},
    {"invoke_landingpad_resume",
     "declare void @g()\ndeclare i32 @__gxx_personality_v0(...)\ndefine void @f() personality ptr @__gxx_personality_v0 {\nentry:\n"
     "  invoke void $gid:g() to label %ok unwind label %bad\nok:\n  ret void\nbad:\n  %lp = landingpad { ptr, i32 } cleanup\n"
     "  resume { ptr, i32 } %lp\n}\n",
     [](LLVMContext &) -> Bindings { return {{"g", "g"}}; },
     "declare void @g()\ndeclare i32 @__gxx_personality_v0(...)\ndefine void @f() personality ptr @__gxx_personality_v0 {\nentry:\n"
     "  invoke void @g() to label %ok unwind label %bad\nok:\n  ret void\nbad:\n  %lp = landingpad { ptr, i32 } cleanup\n"
     "  resume { ptr, i32 } %lp\n}\n"},
    {"funclet_pads",
     "declare void @g()\ndeclare i32 @__CxxFrameHandler3(...)\ndefine void @f() personality ptr @__CxxFrameHandler3 {\nentry:\n"
     "  invoke void @g() to label %ok unwind label %cs\ncs:\n  %s = catchswitch within none [label %h] unwind to caller\n"
     "h:\n  %p = catchpad within %s [ptr null, $args:flags, ptr null]\n  catchret from %p to label %ok\nok:\n  ret void\n}\n",
     [](LLVMContext &C) -> Bindings { return {{"flags", ConstantInt::get(i32(C), 64)}}; },
     "declare void @g()\ndeclare i32 @__CxxFrameHandler3(...)\ndefine void @f() personality ptr @__CxxFrameHandler3 {\nentry:\n"
     "  invoke void @g() to label %ok unwind label %cs\ncs:\n  %s = catchswitch within none [label %h] unwind to caller\n"
     "h:\n  %p = catchpad within %s [ptr null, i32 64, ptr null]\n  catchret from %p to label %ok\nok:\n  ret void\n}\n"},
    // Constant expressions.
    {"constant_expressions",
     "@a = global [4 x $type:t] zeroinitializer\n@p = global ptr getelementptr inbounds ([4 x $type:t], ptr @a, i64 0, i64 $const:i)\n"
     "@q = global i64 ptrtoint (ptr @a to i64)\n@s = global i64 sub (i64 ptrtoint (ptr @p to i64), i64 ptrtoint (ptr @a to i64))\n",
     [](LLVMContext &C) -> Bindings { return {{"t", i32(C)}, {"i", 2}}; },
     "@a = global [4 x i32] zeroinitializer\n@p = global ptr getelementptr inbounds ([4 x i32], ptr @a, i64 0, i64 2)\n"
     "@q = global i64 ptrtoint (ptr @a to i64)\n@s = global i64 sub (i64 ptrtoint (ptr @p to i64), i64 ptrtoint (ptr @a to i64))\n"},
    // Inline assembly.
    {"inline_asm",
     "define $type:t @f($type:t %x) {\n  %r = call $type:t asm sideeffect \"bswap $0\", \"=r,r\"($type:t %x)\n  ret $type:t %r\n}\n",
     [](LLVMContext &C) -> Bindings { return {{"t", i32(C)}}; },
     "define i32 @f(i32 %x) {\n  %r = call i32 asm sideeffect \"bswap $0\", \"=r,r\"(i32 %x)\n  ret i32 %r\n}\n"},
    // Metadata.
    {"metadata",
     "define $type:t @f(ptr %p) !dbg !3 {\n  %v = load $type:t, ptr %p, !dbg !5, !range !6\n  ret $type:t %v\n}\n!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!2}\n"
     "!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)\n!1 = !DIFile(filename: \"a.c\", directory: \"/\")\n"
     "!2 = !{i32 2, !\"Debug Info Version\", i32 3}\n!3 = distinct !DISubprogram(name: \"f\", scope: !1, file: !1, line: $const:line, unit: !0, spFlags: DISPFlagDefinition)\n"
     "!5 = !DILocation(line: 2, scope: !3)\n!6 = !{$type:t 0, $type:t 10}\n",
     [](LLVMContext &C) -> Bindings { return {{"t", i32(C)}, {"line", 7}}; },
     "define i32 @f(ptr %p) !dbg !3 {\n  %v = load i32, ptr %p, !dbg !5, !range !6\n  ret i32 %v\n}\n!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!2}\n"
     "!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)\n!1 = !DIFile(filename: \"a.c\", directory: \"/\")\n"
     "!2 = !{i32 2, !\"Debug Info Version\", i32 3}\n!3 = distinct !DISubprogram(name: \"f\", scope: !1, file: !1, line: 7, unit: !0, spFlags: DISPFlagDefinition)\n"
     "!5 = !DILocation(line: 2, scope: !3)\n!6 = !{i32 0, i32 10}\n"},
};
} // namespace

TEST_CASE("quote_suite_spliced_equals_literal") {
  for (const Case &C : Cases) {
    if (!C.Literal)
      continue;
    INFO(C.Name);
    LLVMContext Ctx1, Ctx2;
    Template T(C.Quote, C.Name);
    std::string Spliced = printed(T.instantiate(Ctx1, C.Bind(Ctx1)));
    std::string Literal = printed(parseModuleString(C.Literal, "q", Ctx2));
    CHECK(Spliced == Literal);
  }
}

TEST_CASE("antiquote_in_a_flag_position_is_a_syntax_error") {
  // `$id:` cannot stand between an opcode and its predicate: it reads as a
  // named type there, and the predicate after it is out of place.
  const Case &C = Cases[9];
  LLVMContext Ctx;
  Template T(C.Quote, "q.cpp");
  Error E = T.check();
  REQUIRE(static_cast<bool>(E));
  std::string S = toString(std::move(E));
  INFO(S);
  CHECK(S.find("q.cpp:2:26: error: expected '(', found keyword 'slt'") == 0);
}
