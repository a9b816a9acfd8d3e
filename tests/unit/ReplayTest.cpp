//===- ReplayTest.cpp - Templates built from their program, not read
//-------===//
//
// A module template in the program's subset (Replay.h) is instantiated by
// building its IR directly. The general path, which splices the bindings in
// and reads the text, is the reference: for each template here, both give
// the same module, printed, or the same error. Templates outside the subset
// must not compile to a program, and still instantiate.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"
#include "Parse.h"
#include "TestUtil.h"
#include "llquote/Template.h"
#include "llvm/IR/Constants.h"
#include "llvm/Support/MemoryBuffer.h"
#include <doctest/doctest.h>

using namespace llq;
using namespace llvm;
using llq::test::printModule;

namespace {

/// \p Text parsed, as Template parses it for its program.
struct Parsed {
  SourceMgr SM;
  unsigned ID = 0;
  std::unique_ptr<SyntaxTree> Tree;
};

std::unique_ptr<Parsed> parse(StringRef Text) {
  auto R = std::make_unique<Parsed>();
  R->ID = R->SM.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Text, "t"),
                                   SMLoc());
  R->Tree =
      std::make_unique<SyntaxTree>(R->SM.getMemoryBuffer(R->ID)->getBuffer());
  REQUIRE_FALSE(static_cast<bool>(parseSyntax(*R->Tree, R->SM, R->ID)));
  return R;
}

bool covered(StringRef Text) {
  std::unique_ptr<Parsed> P = parse(Text);
  return compileTemplate(*P->Tree, P->SM, P->ID).has_value();
}

std::string printed(Expected<std::unique_ptr<Module>> M) {
  if (!M)
    return "error: " + toString(M.takeError());
  return printModule(**M);
}

/// The template instantiated through the program and through the text.
std::pair<std::string, std::string> bothWays(StringRef Text, const Bindings &B,
                                             LLVMContext &Ctx,
                                             FrontendOptions Opts = {}) {
  Template T(Text, "test.cpp", 10, 5);
  FrontendOptions General = Opts;
  General.Replay = false;
  return {printed(T.instantiate(Ctx, B, Opts)),
          printed(T.instantiate(Ctx, B, General))};
}

/// The program's module, SSA restored, printed as the general path's is
/// (named "test.cpp"); "" if the program gives none.
std::string built(StringRef Text, const Bindings &B, LLVMContext &Ctx) {
  std::unique_ptr<Parsed> P = parse(Text);
  std::optional<Program> Prog = compileTemplate(*P->Tree, P->SM, P->ID);
  REQUIRE(Prog.has_value());
  std::unique_ptr<Module> M = Prog->build(Ctx, "test.cpp", B);
  return M ? printModule(*M) : "";
}

const char *const Saxpy = R"(
define void @saxpy(i64 %start, i64 %end, $type:elt %a, ptr %x, ptr %y) {
entry:
  for i64 %i in %start to %end {
    %px = getelementptr $type:elt, ptr %x, i64 %i
    %py = getelementptr $type:elt, ptr %y, i64 %i
    %vx = load $type:elt, ptr %px
    %vy = load $type:elt, ptr %py
    %ax = fmul $type:elt %a, %vx
    %r = fadd $type:elt %ax, %vy
    store $type:elt %r, ptr %py
  }
  ret void
}
define $type:elt @sum(ptr %x, i64 %n) {
entry:
  %acc = $type:elt $const:zero
  for i64 %i in 0 to %n {
    %p = getelementptr $type:elt, ptr %x, i64 %i
    %v = load $type:elt, ptr %p
    %big = fcmp ogt $type:elt %v, $const:zero
    if %big { %acc = fadd $type:elt %acc, %v }
  }
  ret $type:elt %acc
})";

/// Most of the subset at once: flags, casts, compares, select, freeze,
/// author's phis with forward references, while and if/else, aggregates
/// and vectors, stack slots with and without alignment, calls, literals.
const char *const Everything = R"(
target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare $type:t @ext($type:t, ptr)
declare void @sink(...)
define $type:t @f($type:t %a, $type:t %b, ptr %p, i1 %c) {
entry:
  %s = add nuw nsw $type:t %a, $const:k
  %d = sub $type:t %s, -7
  %m = mul nsw $type:t %d, %b
  %q = udiv exact $type:t %m, 4
  %o = or disjoint $type:t %q, 1
  %x = xor $type:t %o, $opr:k
  %sh = shl nuw $type:t %x, 2
  %lt = icmp ult $type:t %sh, %a
  %sel = select i1 %lt, $type:t %sh, $type:t %a
  %fr = freeze $type:t %sel
  %w = zext nneg $type:t %fr to i128
  %t = trunc i128 %w to $type:t
  %f = sitofp $type:t %t to double
  %g = fadd fast double %f, 0x3FF0000000000000
  %h = fmul nnan ninf double %g, 2.5
  %n = fneg double %h
  %fc = fcmp une double %n, 0.0
  %slot = alloca { i32, [4 x float] }, align 16
  %e = getelementptr inbounds { i32, [4 x float] }, ptr %slot, i32 0, i32 1, i64 2
  store float 1.0, ptr %e, align 8
  %ld = load float, ptr %e
  %cl = call $type:t @ext($type:t %t, ptr %slot)
  ret $type:t %cl
}
)";

const char *const Loops = R"(
define $type:t @g($type:t %n, i1 %flag, ptr %p) {
entry:
  %acc = $type:t 0
  %i = $type:t 0
  %go = icmp slt $type:t %i, %n
  while %go {
    %r = srem $type:t %i, 3
    %z = icmp eq $type:t %r, 0
    if %z {
      %acc = add $type:t %acc, %i
    } else {
      %acc = sub $type:t %acc, 1
    }
    %i = add $type:t %i, 1
    %go = icmp slt $type:t %i, %n
  }
  br label %check
check:
  br i1 %flag, label %yes, label %join
yes:
  %u = add $type:t %acc, $const:k
  br label %join
join:
  %phi = phi $type:t [ %acc, %check ], [ %u, %yes ]
  %vp = phi ptr [ null, %check ], [ %p, %yes ]
  %big = icmp ugt $type:t %phi, 100
  br i1 %big, label %out, label %more
more:
  %w = phi $type:t [ %phi, %join ], [ %w2, %more ]
  %w2 = lshr exact $type:t %w, 1
  %done = icmp eq $type:t %w2, 0
  br i1 %done, label %out, label %more
out:
  %res = phi $type:t [ %phi, %join ], [ %w2, %more ]
  call void @sink(ptr %vp)
  ret $type:t %res
}
declare void @sink(...)
)";

/// Casts between address spaces and widths, literals of each kind.
const char *const Plain = R"(
declare void @use(ptr, $type:t)
define void @h(ptr %p, $type:t %x) {
entry:
  %a = alloca [8 x $type:t]
  %e = getelementptr [8 x $type:t], ptr %a, i64 0, i64 3
  store $type:t %x, ptr %e, align 1
  %v = load <2 x float>, ptr %p, align 4
  %z = icmp eq ptr %p, null
  br i1 %z, label %no, label %yes
yes:
  call void @use(ptr %e, $type:t $const:k)
  %u = add $type:t %x, undef
  %w = add $type:t %u, poison
  %y = icmp ne $type:t %w, 0
  %b = select i1 true, i1 %y, i1 false
  %t = trunc $type:t %w to i8
  %s = sext i8 %t to i64
  %pi = inttoptr i64 %s to ptr addrspace(1)
  %ip = ptrtoint ptr addrspace(1) %pi to i64
  %bc = bitcast i64 %ip to double
  ret void
no:
  unreachable
}
)";

} // namespace

TEST_CASE("replay: a template's program builds the module the text reads to") {
  LLVMContext Ctx;
  for (Type *Elt :
       {Type::getFloatTy(Ctx), Type::getDoubleTy(Ctx), Type::getHalfTy(Ctx)}) {
    Bindings B{{"elt", Elt}, {"zero", 0.0f}};
    auto [Fast, General] = bothWays(Saxpy, B, Ctx);
    CHECK(Fast.rfind("error", 0) != 0);
    CHECK(Fast == General);
    CHECK(built(Saxpy, B, Ctx) == General);
    // The reference mode restores SSA through LLVM's PromoteMemToReg.
    FrontendOptions Mem2Reg;
    Mem2Reg.SSA = SSAMode::Mem2Reg;
    auto [FastM, GeneralM] = bothWays(Saxpy, B, Ctx, Mem2Reg);
    CHECK(FastM.rfind("error", 0) != 0);
    CHECK(FastM == GeneralM);
  }
  for (Type *T : {Type::getInt32Ty(Ctx), Type::getInt64Ty(Ctx)}) {
    Bindings B{{"t", T}, {"k", 300}};
    auto [Fast, General] = bothWays(Plain, B, Ctx);
    CHECK(Fast.rfind("error", 0) != 0);
    CHECK(Fast == General);
    CHECK(built(Plain, B, Ctx) == General);
    for (const char *Text : {Everything, Loops}) {
      auto [F2, G2] = bothWays(Text, B, Ctx);
      CHECK(F2.rfind("error", 0) != 0);
      CHECK(F2 == G2);
      CHECK(built(Text, B, Ctx) == G2);
    }
  }
  // A constant binding of each kind: llvm::Constant, bool, integer, float.
  for (Binding K : {Binding(ConstantInt::get(Type::getInt16Ty(Ctx), 9)),
                    Binding(true), Binding(-3), Binding(2.0)}) {
    Bindings B{{"t", Type::getInt16Ty(Ctx)}, {"k", K}};
    auto [Fast, General] = bothWays(Plain, B, Ctx);
    CHECK(Fast == General);
  }
}

TEST_CASE("replay: the subset covers what the skeletons' kernels use") {
  CHECK(covered(Saxpy));
  CHECK(covered(Plain));
  CHECK(covered(Everything));
  CHECK(covered(Loops));
  // Outside: insertelement, and a call with its function type written.
  CHECK_FALSE(covered("define <2 x i8> @f(i8 %a) {\n  %v = insertelement "
                      "<2 x i8> poison, i8 %a, i32 0\n  ret <2 x i8> %v\n}\n"));
  CHECK_FALSE(covered("declare void @g(...)\ndefine void @f() {\n"
                      "  call void (...) @g()\n  ret void\n}\n"));
  // Outside: attributes, metadata, intrinsics, numbered values, globals.
  CHECK_FALSE(covered("define void @f(ptr noalias %p) {\n  ret void\n}\n"));
  CHECK_FALSE(covered("define void @f() {\n  ret void, !dbg !0\n}\n"));
  CHECK_FALSE(covered("define i32 @f(i32 %a) {\n  %0 = add i32 %a, 1\n"
                      "  ret i32 %0\n}\n"));
  CHECK_FALSE(covered("@g = global i32 0\n"));
  CHECK_FALSE(covered("define void @f() #0 {\n  ret void\n}\n"));
}

TEST_CASE("replay: reads written with a type antiquote and with its type") {
  // Lowering answers reads of one written type with one placeholder; with
  // the antiquote in place, `$type:t` and `i32` are two. The module is the
  // same.
  const char *Mixed = R"(
define i32 @f(i32 %n, i1 %c) {
entry:
  %x = i32 %n
  if %c { %x = add i32 %x, 1 }
  %a = add $type:t %x, 2
  %b = add i32 %x, 3
  %d = mul $type:t %x, %b
  ret i32 %d
}
)";
  CHECK(covered(Mixed));
  LLVMContext Ctx;
  Bindings B{{"t", Type::getInt32Ty(Ctx)}};
  auto [Fast, General] = bothWays(Mixed, B, Ctx);
  CHECK(Fast.rfind("error", 0) != 0);
  CHECK(Fast == General);
  CHECK(built(Mixed, B, Ctx) == General);
  // Of another type, the read is the general path's error.
  Bindings Wrong{{"t", Type::getInt64Ty(Ctx)}};
  auto [FastW, GeneralW] = bothWays(Mixed, Wrong, Ctx);
  CHECK(FastW.rfind("error", 0) == 0);
  CHECK(FastW == GeneralW);
}

TEST_CASE("replay: the program's tokens are LLVM's") {
  // Found by fuzz.template: LLVM ends a comment at a carriage return, and
  // a vertical tab is no blank to it. Both texts are LLVM's errors.
  LLVMContext Ctx;
  for (const char *Text :
       {"; a comment\rthat ends early\ndefine void @f() {\nentry:\n"
        "  ret void\n}\n",
        "define void @f() {\nentry:\n  ret void\n}\v"}) {
    CAPTURE(Text);
    CHECK_FALSE(covered(Text));
    auto [Fast, General] = bothWays(Text, {}, Ctx);
    CHECK(Fast.rfind("error: ", 0) == 0);
    CHECK(Fast == General);
  }
  // Blanks and comments LLVM takes are taken.
  const char *Blanks = "; one\r\n\tdefine void @f() {\r\nentry: ; two\n"
                       "  ret void\n}\n";
  CHECK(covered(Blanks));
  auto [Fast, General] = bothWays(Blanks, {}, Ctx);
  CHECK(Fast.rfind("error", 0) != 0);
  CHECK(Fast == General);
}

TEST_CASE("replay: a for loop's bound step is read by lowering") {
  // A step of 1 has no latch; a step of 0 or below is an error. Lowering
  // tells them apart by the bound text, so the template has no program.
  const char *Stepped = R"(
define i64 @f(i64 %n) {
entry:
  %s = i64 0
  for i64 %i in 0 to %n step $const:k { %s = add i64 %s, %i }
  ret i64 %s
}
)";
  CHECK_FALSE(covered(Stepped));
  LLVMContext Ctx;
  for (int K : {1, 3, 0, -2}) {
    CAPTURE(K);
    auto [Fast, General] = bothWays(Stepped, {{"k", K}}, Ctx);
    CHECK(Fast == General);
    CHECK((Fast.rfind("error", 0) == 0) == (K <= 0));
    CHECK((Fast.find("for.latch") == std::string::npos) == (K == 1 || K <= 0));
  }
}

TEST_CASE("replay: templates outside the subset still instantiate alike") {
  LLVMContext Ctx;
  const char *Outside = R"(
define $type:t @f($type:t %a, i1 %c) {
entry:
  %x = $type:t %a
  if %c { %x = add nsw $type:t %x, $const:k }
  %v = insertelement <2 x $type:t> poison, $type:t %x, i32 0
  %s = extractelement <2 x $type:t> %v, i32 0
  %r = call $type:t @llvm.abs.i32($type:t %s, i1 false)
  ret $type:t %r
}
declare $type:t @llvm.abs.i32($type:t, i1)
)";
  Bindings B{{"t", Type::getInt32Ty(Ctx)}, {"k", 1}};
  auto [Fast, General] = bothWays(Outside, B, Ctx);
  CHECK(Fast.rfind("error", 0) != 0);
  CHECK(Fast == General);
}

TEST_CASE("replay: a mistake gets the general path's error, at the template") {
  LLVMContext Ctx;
  struct Case {
    const char *Text;
    Bindings B;
  };
  Type *I32 = Type::getInt32Ty(Ctx), *F32 = Type::getFloatTy(Ctx);
  std::vector<Case> Cases = {
      // fadd of an integer type.
      {Saxpy, {{"elt", I32}, {"zero", 0}}},
      // 0.1 is no float: "floating point constant invalid for type".
      {Saxpy, {{"elt", F32}, {"zero", 0.1}}},
      // An integer constant where a float is wanted.
      {Saxpy, {{"elt", F32}, {"zero", 1}}},
      // An undefined name; a name defined twice; a value for a void return.
      {"define void @f() {\nentry:\n  %a = add i32 %nope, 1\n  ret void\n}\n",
       {}},
      {"define void @f(i32 %a) {\nentry:\n  br label %b\nb:\n"
       "  %a.1 = add i32 %a, 1\n  %a.1 = add i32 %a, 2\n  ret void\n}\n",
       {}},
      {"define void @f($type:t %a) {\nentry:\n  ret $type:t %a\n}\n",
       {{"t", I32}}},
      // A phi of a block that is not there; a label used as a value name.
      {"define i32 @f() {\nentry:\n  br label %next\nnext:\n"
       "  %p = phi i32 [ 1, %nowhere ]\n  ret i32 %p\n}\n",
       {}},
      {"define void @f() {\nentry:\n  %next = add i32 1, 2\n  br label %next\n"
       "next:\n  ret void\n}\n",
       {}},
  };
  for (size_t I = 0; I < Cases.size(); ++I) {
    CAPTURE(I);
    auto [Fast, General] = bothWays(Cases[I].Text, Cases[I].B, Ctx);
    CHECK(Fast.rfind("error: ", 0) == 0);
    CHECK(Fast == General);
  }
  // A type of another context is not the module's: the general path takes
  // it (it splices the type's text), and the program refuses it.
  LLVMContext Other;
  Bindings Foreign{{"elt", Type::getFloatTy(Other)}, {"zero", 0.0f}};
  auto [Fast, General] = bothWays(Saxpy, Foreign, Ctx);
  CHECK(Fast == General);
  CHECK(built(Saxpy, Foreign, Ctx).empty());
  // A vector type longer than the front end reads is refused both ways: the
  // program leaves it to the general path, which refuses its text.
  const char *Param = "define void @f($type:t %a) {\nentry:\n  ret void\n}\n";
  Bindings Wide{{"t", FixedVectorType::get(I32, 4000000)}};
  auto [WideFast, WideGeneral] = bothWays(Param, Wide, Ctx);
  CHECK(WideFast.find("error: vector of 4000000 elements") != std::string::npos);
  CHECK(WideFast == WideGeneral);
  CHECK(built(Param, Wide, Ctx).empty());
  Bindings Limit{{"t", FixedVectorType::get(I32, 1 << 16)}};
  CHECK(!built(Param, Limit, Ctx).empty());
  auto [LimitFast, LimitGeneral] = bothWays(Param, Limit, Ctx);
  CHECK(LimitFast == LimitGeneral);
}
