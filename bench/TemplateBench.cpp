//===- TemplateBench.cpp - Template instantiation against parseAssembly ---===//
//
// Times, interleaved in one run, the instantiation of a cached template into
// a verified module (splice, parse, lower to SSA, assemble, verify) against
// llvm::parseAssemblyString + verifyModule of the same module's text, which
// is what a program holding ready LLVM IR text would do. Then times emitting
// an instruction template at an IRBuilder's point against building the same
// instructions with the IRBuilder. Prints the medians and their ratios.
//
//===----------------------------------------------------------------------===//

#include "llquote/Template.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <vector>

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

template <typename Fn> static double seconds(Fn &&F) {
  auto Start = std::chrono::steady_clock::now();
  F();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

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
  std::vector<double> Inst, Parse;
  for (int R = 0; R < 2000; ++R) {
    Inst.push_back(seconds([&] {
      LLVMContext Ctx;
      auto M = Kernel.instantiate(Ctx, {{"elt", Type::getFloatTy(Ctx)}, {"zero", 0.0f}});
      if (!M)
        exit(1);
    }));
    Parse.push_back(seconds([&] {
      LLVMContext Ctx;
      SMDiagnostic Diag;
      auto M = parseAssemblyString(Text, Diag, Ctx);
      if (!M || verifyModule(*M))
        exit(1);
    }));
  }
  std::sort(Inst.begin(), Inst.end());
  std::sort(Parse.begin(), Parse.end());
  double I = Inst[Inst.size() / 2], P = Parse[Parse.size() / 2];
  outs() << format("instantiate cached template:     %8.1f us\n", I * 1e6)
         << format("parseAssemblyString + verify:    %8.1f us\n", P * 1e6)
         << format("ratio instantiate / parse:       %8.2f\n", I / P);

  // Emitting into a function being built, against the IRBuilder. Each
  // round builds a fresh function both ways and deletes it.
  LLVMContext Ctx;
  Module M("bench", Ctx);
  Type *F32 = Type::getFloatTy(Ctx), *Ptr = PointerType::get(Ctx, 0),
       *I64 = Type::getInt64Ty(Ctx);
  auto *FT = FunctionType::get(Type::getVoidTy(Ctx), {I64, F32, Ptr, Ptr}, false);
  std::vector<double> Emit, Build;
  for (int R = 0; R < 2000; ++R) {
    Function *F = Function::Create(FT, Function::ExternalLinkage, "k", M);
    IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
    Emit.push_back(seconds([&] {
      auto E = Body.emit(B, {{"elt", F32}},
                         {{"i", F->getArg(0)}, {"a", F->getArg(1)},
                          {"x", F->getArg(2)}, {"y", F->getArg(3)}});
      if (!E)
        exit(1);
    }));
    Build.push_back(seconds([&] {
      Value *PX = B.CreateGEP(F32, F->getArg(2), F->getArg(0), "px");
      Value *PY = B.CreateGEP(F32, F->getArg(3), F->getArg(0), "py");
      Value *VX = B.CreateLoad(F32, PX, "vx");
      Value *VY = B.CreateLoad(F32, PY, "vy");
      Value *AX = B.CreateFMul(F->getArg(1), VX, "ax");
      B.CreateStore(B.CreateFAdd(AX, VY, "r"), PY);
    }));
    B.CreateRetVoid();
    if (verifyFunction(*F, &errs()))
      exit(1);
    F->eraseFromParent();
  }
  std::sort(Emit.begin(), Emit.end());
  std::sort(Build.begin(), Build.end());
  double Em = Emit[Emit.size() / 2], Bu = Build[Build.size() / 2];
  outs() << format("emit 7 instructions (template):  %8.1f us\n", Em * 1e6)
         << format("the same with the IRBuilder:     %8.1f us\n", Bu * 1e6)
         << format("ratio emit / IRBuilder:          %8.2f\n", Em / Bu);
  return 0;
}
