//===- TemplateBench.cpp - Template instantiation against parseAssembly ---===//
//
// Times, interleaved in one run, the instantiation of a cached template into
// a verified module (splice, parse, lower to SSA, assemble, verify) against
// llvm::parseAssemblyString + verifyModule of the same module's text, which
// is what a program holding ready LLVM IR text would do. Prints the medians
// and their ratio.
//
//===----------------------------------------------------------------------===//

#include "llquote/Template.h"
#include "llvm/AsmParser/Parser.h"
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
  return 0;
}
