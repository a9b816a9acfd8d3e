//===- ReadIR.h - The benchmarks' LLVM baseline: read and verify IR text --===//
//
// What a program holding ready LLVM IR text does with it: parseAssemblyString
// into a fresh context, then verifyModule. The baseline of bench-template and
// the yardstick of bench-ssa. A failure is a broken benchmark input: it
// exits, since no figure measured after it would mean anything.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_BENCH_READIR_H
#define LLQUOTE_BENCH_READIR_H

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

namespace llq::bench {

inline void readAndVerify(llvm::StringRef Text) {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Diag;
  auto M = llvm::parseAssemblyString(Text, Diag, Ctx);
  if (!M || llvm::verifyModule(*M, &llvm::errs())) {
    Diag.print("llquote bench", llvm::errs());
    std::exit(1);
  }
}

} // namespace llq::bench

#endif // LLQUOTE_BENCH_READIR_H
