//===- TemplateBench.cpp - Template instantiation against parseAssembly ---===//
//
// Times, interleaved in one run, the instantiation of a cached template into
// a verified module against
// llvm::parseAssemblyString + verifyModule of the same module's text, which
// is what a program holding ready LLVM IR text would do. The template is in
// the subset of Replay.h, so each instantiation builds its IR from the
// template's program, restores SSA and verifies; a second pair times the
// general path (splice, read, lower, read with LLVM's parser, restore SSA,
// verify), FrontendOptions::Replay off, against the same baseline. Then
// times emitting
// an instruction template at an IRBuilder's point against building the same
// instructions with the IRBuilder. Each pair is interleaved; each ratio is
// printed as its median with its range over the repetitions (Measure.h),
// and a side faster than 1 ms is timed over a batch of calls.
//
//===----------------------------------------------------------------------===//

#include "Measure.h"
#include "ReadIR.h"
#include "llquote/Template.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static const llq::Template Kernel = LLQ_SKELETON(R"(
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
})");

static const llq::Template Body = LLQ_INSTRS(R"(
  %px = getelementptr $type:elt, ptr %x, i64 %i
  %py = getelementptr $type:elt, ptr %y, i64 %i
  %vx = load $type:elt, ptr %px
  %vy = load $type:elt, ptr %py
  %ax = fmul $type:elt %a, %vx
  %r = fadd $type:elt %ax, %vy
  store $type:elt %r, ptr %py
)");

using namespace llq::bench;

static const unsigned Reps = 15;

int main() {
  std::string Text;
  {
    LLVMContext Ctx;
    auto M = Kernel.instantiate(Ctx, {{"elt", Type::getFloatTy(Ctx)}, {"zero", 0.0f}});
    if (!M) {
      logAllUnhandledErrors(M.takeError(), errs());
      return 1;
    }
    raw_string_ostream OS(Text);
    (*M)->print(OS, nullptr);
  }
  auto Instantiate = [&](llq::FrontendOptions Opts) {
    return batched([&, Opts] {
      LLVMContext Ctx;
      auto M = Kernel.instantiate(
          Ctx, {{"elt", Type::getFloatTy(Ctx)}, {"zero", 0.0f}}, Opts);
      if (!M)
        exit(1);
    });
  };
  BatchFn Inst = Instantiate({});
  BatchFn Parse = batched([&] { readAndVerify(Text); });
  Paired P = comparePaired(Inst, Parse, Reps);
  outs() << "median [min-max] over " << Reps << " interleaved repetitions\n"
         << "instantiate cached template, us:  " << spread(P.a(), 1, 1e6) << "\n"
         << "parseAssemblyString + verify, us: " << spread(P.b(), 1, 1e6) << "\n"
         << "ratio instantiate / parse:        " << spread(P.ratioAB(), 2) << "\n";
  llq::FrontendOptions General;
  General.Replay = false;
  BatchFn Read = Instantiate(General);
  Paired G = comparePaired(Read, Parse, Reps);
  outs() << "general path (Replay off), us:    " << spread(G.a(), 1, 1e6) << "\n"
         << "parseAssemblyString + verify, us: " << spread(G.b(), 1, 1e6) << "\n"
         << "ratio general path / parse:       " << spread(G.ratioAB(), 2) << "\n";

  // Emitting into a function being built, against the IRBuilder. Each batch
  // builds a fresh function and deletes it, untimed.
  LLVMContext Ctx;
  Module M("bench", Ctx);
  Type *F32 = Type::getFloatTy(Ctx), *Ptr = PointerType::get(Ctx, 0),
       *I64 = Type::getInt64Ty(Ctx);
  auto *FT = FunctionType::get(Type::getVoidTy(Ctx), {I64, F32, Ptr, Ptr}, false);
  auto InFunction = [&](auto Body) -> BatchFn {
    return [&, Body](unsigned Batch) {
      Function *F = Function::Create(FT, Function::ExternalLinkage, "k", M);
      IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
      double T = seconds([&] {
        for (unsigned I = 0; I < Batch; ++I)
          Body(B, F);
      });
      B.CreateRetVoid();
      if (verifyFunction(*F, &errs()))
        exit(1);
      F->eraseFromParent();
      return T;
    };
  };
  BatchFn Emit = InFunction([&](IRBuilder<> &B, Function *F) {
    auto E = Body.emit(B, {{"elt", F32}},
                       {{"i", F->getArg(0)}, {"a", F->getArg(1)},
                        {"x", F->getArg(2)}, {"y", F->getArg(3)}});
    if (!E)
      exit(1);
  });
  BatchFn Build = InFunction([&](IRBuilder<> &B, Function *F) {
    Value *PX = B.CreateGEP(F32, F->getArg(2), F->getArg(0), "px");
    Value *PY = B.CreateGEP(F32, F->getArg(3), F->getArg(0), "py");
    Value *VX = B.CreateLoad(F32, PX, "vx");
    Value *VY = B.CreateLoad(F32, PY, "vy");
    Value *AX = B.CreateFMul(F->getArg(1), VX, "ax");
    B.CreateStore(B.CreateFAdd(AX, VY, "r"), PY);
  });
  Paired Q = comparePaired(Emit, Build, Reps);
  outs() << "emit 7 instructions (template), us: " << spread(Q.a(), 2, 1e6) << "\n"
         << "the same with the IRBuilder, us:    " << spread(Q.b(), 3, 1e6) << "\n"
         << "ratio emit / IRBuilder:             " << spread(Q.ratioAB(), 1) << "\n";
  return 0;
}
