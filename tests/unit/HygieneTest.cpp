//===- HygieneTest.cpp - Hygienic fragments -------------------------------===//
//
// LLQ_HYGIENIC_INSTRS and LLQ_HYGIENIC_BLOCKS fragments: spliced any number
// of times into one function, their names renamed apart at each splice;
// exports reached through Fragment::value(); no capture of the names around
// them, and a located error for a name they read without being given it.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "llquote/Diagnostics.h"
#include "llquote/Template.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include <doctest/doctest.h>

using namespace llq;
using namespace llvm;

namespace {

std::string errorOf(Error E) {
  std::string S;
  handleAllErrors(std::move(E), [&](const ErrorInfoBase &I) {
    S += I.message() + "\n";
  });
  return S;
}
template <typename T> std::string errorOf(Expected<T> V) {
  if (V)
    return "";
  return errorOf(V.takeError());
}
template <typename T> T require(Expected<T> V) {
  if (!V)
    FAIL(toString(V.takeError()));
  return std::move(*V);
}

std::string printed(Module &M) {
  std::string S;
  raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

/// Loads element %i of a float array and squares it: a local (%p), an
/// export (%sq).
const Template Square = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr float, ptr $opr:buf, i64 $opr:ix
  %v = load float, ptr %p
  %sq = fmul float %v, %v
)");

/// Adds two values into a template variable it is given by $id:.
const Template AddInto = LLQ_HYGIENIC_INSTRS(R"(
  %t = fadd float $opr:a, $opr:b
  $id:acc = fadd float $id:acc, %t
)");

const Template SumOfSquares = LLQ_SKELETON(R"(
define float @sos(ptr %x, i64 %i, i64 %j) {
entry:
  %acc = float 0.0
  $instrs:first
  $instrs:second
  $instrs:add
  ret float %acc
})");

} // namespace

TEST_CASE("a fragment spliced twice into one body: names apart, exports "
          "through value()") {
  LLVMContext Ctx;
  Fragment A = require(Square.fragment({{"buf", "x"}, {"ix", "i"}}, {"sq"}));
  Fragment B = require(Square.fragment({{"buf", "x"}, {"ix", "j"}}, {"sq"}));
  Fragment Add = require(
      AddInto.fragment({{"a", A.value("sq")}, {"b", B.value("sq")},
                        {"acc", "acc"}}));
  CHECK(A.Hygienic);
  CHECK(A.Text != B.Text);
  CHECK(Add.Outputs == std::vector<std::string>{"acc"});
  std::unique_ptr<Module> M = require(SumOfSquares.instantiate(
      Ctx, {{"first", A}, {"second", B}, {"add", Add}}));
  std::string IR = printed(*M);
  // Readable names, each defined once, the two loads apart.
  CHECK(IR.find("%p.0 = getelementptr float, ptr %x, i64 %i") != std::string::npos);
  CHECK(IR.find("%p.1 = getelementptr float, ptr %x, i64 %j") != std::string::npos);
  CHECK(IR.find("%sq.0 = fmul float %v.0, %v.0") != std::string::npos);
  CHECK(IR.find("%sq.1 = fmul float %v.1, %v.1") != std::string::npos);
  CHECK(IR.find("fadd float %sq.0, %sq.1") != std::string::npos);
  CHECK(IR.find("\\01h") == std::string::npos); // no placeholder is left
  CHECK_FALSE(verifyModule(*M, &errs()));

  // The same Fragment object twice: the second splice renames its own names
  // apart (two %p, two %v), and its export names the latest splice's value.
  static const Template Twice = LLQ_SKELETON(R"(
define float @twice(ptr %x, i64 %i) {
entry:
  $instrs:sq
  %first = fadd float $opr:r, 0.0
  $instrs:sq
  %second = fadd float $opr:r, 0.0
  %both = fadd float %first, %second
  ret float %both
})");
  std::unique_ptr<Module> M2 =
      require(Twice.instantiate(Ctx, {{"sq", A}, {"r", A.value("sq")}}));
  std::string IR2 = printed(*M2);
  CHECK(IR2.find("%p.0 = getelementptr") != std::string::npos);
  CHECK(IR2.find("%p.1 = getelementptr") != std::string::npos);
  CHECK(IR2.find("%v.1 = load float, ptr %p.1") != std::string::npos);
  CHECK_FALSE(verifyModule(*M2, &errs()));
  // The names depend on the text alone: a second instantiation, with new
  // fragments and so new placeholders, prints the same module.
  Fragment A2 = require(Square.fragment({{"buf", "x"}, {"ix", "i"}}, {"sq"}));
  std::unique_ptr<Module> M3 =
      require(Twice.instantiate(Ctx, {{"sq", A2}, {"r", A2.value("sq")}}));
  CHECK(printed(*M3) == IR2);
}

TEST_CASE("a fragment's local named like a template variable is its own") {
  LLVMContext Ctx;
  // %acc is the template's accumulator; the fragment's own %acc is another
  // value, and the template's survives it.
  static const Template Shadow = LLQ_HYGIENIC_INSTRS(R"(
  %acc = fmul float $opr:x, 2.0
  %r = fadd float %acc, 1.0
)");
  static const Template Host = LLQ_SKELETON(R"(
define float @host(float %x) {
entry:
  %acc = fadd float %x, 10.0
  $instrs:frag
  %out = fadd float %acc, $opr:r
  ret float %out
})");
  Fragment F = require(Shadow.fragment({{"x", "x"}}, {"r"}));
  std::unique_ptr<Module> M =
      require(Host.instantiate(Ctx, {{"frag", F}, {"r", F.value("r")}}));
  std::string IR = printed(*M);
  CHECK(IR.find("%acc = fadd float %x, 1.000000e+01") != std::string::npos);
  CHECK(IR.find("%acc.0 = fmul float %x, 2.000000e+00") != std::string::npos);
  CHECK(IR.find("%out = fadd float %acc, %r.0") != std::string::npos);
  CHECK_FALSE(verifyModule(*M, &errs()));
  // The same text as a plain fragment is the capture error it always was.
  static const Template Plain = LLQ_INSTRS(R"(
  %acc = fmul float %x, 2.0
)");
  Fragment P = require(Plain.fragment());
  CHECK(errorOf(Host.instantiate(Ctx, {{"frag", P}, {"r", "acc"}}))
            .find("defines '%acc', which the template also uses") !=
        std::string::npos);
}

TEST_CASE("a fragment that reads a name it was not given: an error at its "
          "C++ line") {
  // Written here, without the macro, so that the build-time check of this
  // file does not stop the build: the same text in LLQ_HYGIENIC_INSTRS fails
  // llquote_check_templates (tests/lit/antiquotes/hygiene-check.test).
  Template Leaky("\n  %y = add i64 $opr:x, 1\n  %z = mul i64 %y, %n\n",
                 "leaky.cpp", 40, 1, Granularity::Instructions,
                 /*Hygienic=*/true);
  CHECK(errorOf(Leaky.check())
            .find("leaky.cpp:42:20: error: the hygienic fragment reads '%n', "
                  "which it neither defines nor is given") == 0);
  CHECK(errorOf(Leaky.fragment({{"x", 1}})).find("leaky.cpp:42:20:") == 0);
  // Labels as well: a branch to a block of the code around it.
  Template Jumps("\n  br label %exit\n", "jumps.cpp", 1, 1,
                 Granularity::Instructions, /*Hygienic=*/true);
  CHECK(errorOf(Jumps.check()).find("jumps.cpp:2:12: error: the hygienic "
                                    "fragment reads '%exit'") == 0);
  // What it was given through antiquotes is fine, and so are its loops.
  static const Template Given = LLQ_HYGIENIC_INSTRS(R"(
  %s = i64 0
  for i64 %k in 0 to $opr:n {
    %s = add i64 %s, %k
  }
  $id:out = i64 %s
)");
  CHECK(errorOf(Given.check()).empty());
  // An export it does not define, and value() of a name it does not export.
  CHECK(errorOf(Given.fragment({{"n", 4}, {"out", "o"}}, {"nope"}))
            .find("the fragment is to export '%nope', which it does not "
                  "define") != std::string::npos);
  Fragment G = require(Given.fragment({{"n", 4}, {"out", "o"}}, {"s"}));
  static const Template Use = LLQ_SKELETON(R"(
define i64 @use() {
entry:
  %o = i64 0
  $instrs:g
  ret i64 $opr:v
})");
  LLVMContext Ctx;
  std::string E = errorOf(Use.instantiate(Ctx, {{"g", G}, {"v", G.value("k")}}));
  CHECK(E.find("exports no '%k' (it exports '%s')") != std::string::npos);
  CHECK(E.find("HygieneTest.cpp:193:11:") != std::string::npos);
  std::unique_ptr<Module> M =
      require(Use.instantiate(Ctx, {{"g", G}, {"v", G.value("s")}}));
  CHECK_FALSE(verifyModule(*M, &errs()));
}

TEST_CASE("per-field fragments of a 3-field tuple splice as one list") {
  LLVMContext Ctx;
  // Loads field F of element %i from its own buffer and inserts it into
  // the tuple so far: one fragment per field, joined by $instrs:.
  static const Template Field = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %v = load $type:t, ptr %p
  %agg = insertvalue $type:tuple $opr:into, $type:t %v, $const:f
)");
  static const Template Gather = LLQ_SKELETON(R"(
define $type:tuple @gather(ptr %a, ptr %b, ptr %c, i64 %i) {
entry:
  $instrs:fields
  ret $type:tuple $opr:result
})");
  Type *I32 = Type::getInt32Ty(Ctx), *F64 = Type::getDoubleTy(Ctx),
       *I8 = Type::getInt8Ty(Ctx);
  Type *Tuple = StructType::get(Ctx, {I32, F64, I8});
  std::vector<Fragment> Fields;
  Binding Into = "poison";
  const char *Bufs[] = {"a", "b", "c"};
  Type *Tys[] = {I32, F64, I8};
  for (unsigned F = 0; F < 3; ++F) {
    Fields.push_back(require(Field.fragment(
        {{"t", Tys[F]}, {"tuple", Tuple}, {"buf", Bufs[F]}, {"ix", "i"},
         {"into", F == 0 ? Binding(UndefValue::get(Tuple)) : Into}, {"f", F}},
        {"agg"})));
    Into = Fields.back().value("agg");
  }
  std::unique_ptr<Module> M = require(Gather.instantiate(
      Ctx, {{"tuple", Tuple}, {"fields", Fields}, {"result", Into}}));
  CHECK_FALSE(verifyModule(*M, &errs()));
  std::string IR = printed(*M);
  CHECK(IR.find("%agg.2 = insertvalue { i32, double, i8 } %agg.1, i8 %v.2, 2") !=
        std::string::npos);
  CHECK(IR.find("ret { i32, double, i8 } %agg.2") != std::string::npos);

  CHECK(IR.find("%v.0 = load i32, ptr %p.0") != std::string::npos);
  CHECK(IR.find("%p.1 = getelementptr double, ptr %b, i64 %i") != std::string::npos);
  CHECK(IR.find("%agg.0 = insertvalue { i32, double, i8 } undef, i32 %v.0, 0") !=
        std::string::npos);
  CHECK(IR.find("%agg.1 = insertvalue { i32, double, i8 } %agg.0, double %v.1, 1") !=
        std::string::npos);
}

TEST_CASE("hygienic blocks: labels of their own, renamed apart") {
  LLVMContext Ctx;
  // Clamps a value below zero to zero, with blocks of its own; the block to
  // go on to is given by $label:.
  static const Template Clamp = LLQ_HYGIENIC_BLOCKS(R"(
check:
  %neg = icmp slt i32 $opr:x, 0
  br i1 %neg, label %zero, label $label:next
zero:
  br label $label:next
)");
  static const Template Host = LLQ_SKELETON(R"(
define i32 @host(i32 %a, i32 %b) {
entry:
  br label %c1
  $bbs:clamps
done:
  ret i32 0
})");
  // The glue between them is a plain blocks template: it names the template's
  // blocks, and reaches each fragment's entry through its export.
  static const Template Mid = LLQ_BLOCKS(R"(
c1:
  br label $label:first
mid:
  br label $label:second
)");
  Fragment C1e = require(Clamp.fragment({{"x", "a"}, {"next", "mid"}}, {"check"}));
  Fragment C2e = require(Clamp.fragment({{"x", "b"}, {"next", "done"}}, {"check"}));
  Fragment Glue = require(Mid.fragment({{"first", C1e.value("check")},
                                        {"second", C2e.value("check")}}));
  std::unique_ptr<Module> M =
      require(Host.instantiate(Ctx, {{"clamps", std::vector<Binding>{Glue, C1e, C2e}}}));
  CHECK_FALSE(verifyModule(*M, &errs()));
  std::string IR = printed(*M);
  CHECK(IR.find("check.0:") != std::string::npos);
  CHECK(IR.find("check.1:") != std::string::npos);
  CHECK(IR.find("zero.0:") != std::string::npos);
  CHECK(IR.find("zero.1:") != std::string::npos);
}

TEST_CASE("typed parameters, and constants as aggregate indices and alignments") {
  LLVMContext Ctx;
  // What the skeleton library's entry points and tuples need: parameters
  // from types and names, indices and alignments from numbers.
  static const Template Fields = LLQ_SKELETON(R"(
define $type:t @get($params:params) {
entry:
  %v = load $type:agg, ptr %p, align $const:align
  %f = extractvalue $type:agg %v, $const:k
  %w = insertvalue $type:agg %v, $type:t %f, $const:k
  store $type:agg %w, ptr %q, align $const:align
  ret $type:t %f
})");
  Type *Ptr = PointerType::get(Ctx, 0), *F64 = Type::getDoubleTy(Ctx);
  Type *Agg = StructType::get(Ctx, {Type::getInt32Ty(Ctx), F64});
  std::vector<Binding> Params{Binding::param(Ptr, "p", {"noalias"}),
                              Binding::param(Ptr, "q")};
  std::unique_ptr<Module> M = require(Fields.instantiate(
      Ctx, {{"t", F64}, {"agg", Agg}, {"params", Params}, {"align", 8}, {"k", 1}}));
  CHECK_FALSE(verifyModule(*M, &errs()));
  std::string IR = printed(*M);
  CHECK(IR.find("define double @get(ptr noalias %p, ptr %q)") != std::string::npos);
  CHECK(IR.find("load { i32, double }, ptr %p, align 8") != std::string::npos);
  CHECK(IR.find("%f = extractvalue { i32, double } %v, 1") != std::string::npos);
  // A parameter where an instruction stands, and a float as an index, are
  // errors at the antiquote.
  Template Wrong("define void @w() {\n  $instrs:body\n  ret void\n}\n", "w.cpp", 1);
  CHECK(errorOf(Wrong.instantiate(Ctx, {{"body", Binding::param(Ptr, "p")}}))
            .find("w.cpp:2:3: error: antiquote '$instrs:body' takes fragments "
                  "or their text, or a list of them, but 'body' is bound to a "
                  "parameter") == 0);
  std::string E = errorOf(Fields.instantiate(
      Ctx, {{"t", F64}, {"agg", Agg}, {"params", Params}, {"align", 8}, {"k", 0.5}}));
  CHECK(E.find("HygieneTest.cpp:298:35: error: unexpected floating-point "
               "constant") != std::string::npos);
  CHECK(E.find("note: 'k' is bound to the number 0.5") != std::string::npos);
}
