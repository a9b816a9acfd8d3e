//===- SSABench.cpp - Braun et al. against mem2reg, same inputs -----------===//
//
// For each dialect file, times the whole front end (text to verified module)
// with --ssa=braun and with the --ssa=mem2reg reference, interleaved, and
// prints the medians and their ratio. Both modes give the same phis (the
// ssa-corpus tests check that); this measures what each costs.
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <vector>

using namespace llvm;

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.ll>..."),
                                    cl::OneOrMore);
static cl::opt<unsigned> Reps("reps", cl::desc("Runs per file and mode"),
                              cl::init(5));

static double timeMode(StringRef Text, StringRef Name, llq::SSAMode Mode) {
  llq::FrontendOptions Opts;
  Opts.SSA = Mode;
  auto Start = std::chrono::steady_clock::now();
  LLVMContext Ctx;
  auto M = llq::parseModuleString(Text, Name, Ctx, Opts);
  if (!M) {
    logAllUnhandledErrors(M.takeError(), errs());
    exit(1);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

static double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "Braun et al. vs mem2reg\n");
  outs() << "file                      braun ms   mem2reg ms   mem2reg/braun\n";
  for (const std::string &Path : Inputs) {
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf) {
      errs() << Path << ": " << Buf.getError().message() << "\n";
      return 1;
    }
    std::vector<double> Braun, Mem;
    for (unsigned R = 0; R < Reps; ++R) {
      Braun.push_back(timeMode((*Buf)->getBuffer(), Path, llq::SSAMode::Braun));
      Mem.push_back(timeMode((*Buf)->getBuffer(), Path, llq::SSAMode::Mem2Reg));
    }
    double B = median(Braun), M = median(Mem);
    outs() << format("%-24s %10.1f %12.1f %15.2f\n",
                     sys::path::filename(Path).str().c_str(), B * 1e3, M * 1e3,
                     M / B);
  }
  outs() << "both times are the whole front end: parse, lower, assemble, verify\n";
  return 0;
}
