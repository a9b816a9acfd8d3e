//===- ParseThroughput.cpp - Front-end throughput against llvm-as ---------===//
//
// For each input file, measures in one process, interleaved, the time from
// text to a verified module:
//   llquote  llq::parseModule (lex, parse, lower, assemble, verify)
//   llvm-as  llvm::parseAssembly + llvm::verifyModule, what llvm-as does
//            before writing bitcode
// and prints MB/s for both and their ratio. Medians of --reps runs.
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <vector>

using namespace llvm;

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.ll>..."),
                                    cl::OneOrMore);
static cl::opt<unsigned> Reps("reps", cl::desc("Runs per file and tool"),
                              cl::init(7));

static double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

template <typename Fn> static double seconds(Fn &&F) {
  auto Start = std::chrono::steady_clock::now();
  F();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "llquote parse throughput benchmark\n");
  outs() << "file                              MB   llquote MB/s  llvm-as MB/s  ratio\n";
  double SumOurs = 0, SumTheirs = 0, SumMB = 0;
  for (const std::string &Path : Inputs) {
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf) {
      errs() << Path << ": " << Buf.getError().message() << "\n";
      return 1;
    }
    StringRef Text = (*Buf)->getBuffer();
    double MB = Text.size() / 1e6;
    std::vector<double> Ours, Theirs;
    for (unsigned R = 0; R < Reps; ++R) {
      Ours.push_back(seconds([&] {
        LLVMContext Ctx;
        auto M = llq::parseModuleString(Text, Path, Ctx);
        if (!M) {
          logAllUnhandledErrors(M.takeError(), errs());
          exit(1);
        }
      }));
      Theirs.push_back(seconds([&] {
        LLVMContext Ctx;
        SMDiagnostic Diag;
        auto M = parseAssembly(MemoryBufferRef(Text, Path), Diag, Ctx);
        if (!M || verifyModule(*M, &errs()))
          exit(1);
      }));
    }
    double O = median(Ours), T = median(Theirs);
    SumOurs += O;
    SumTheirs += T;
    SumMB += MB;
    outs() << format("%-30s %7.2f %12.1f %13.1f %6.3f\n",
                     sys::path::filename(Path).str().c_str(), MB, MB / O,
                     MB / T, T / O);
  }
  outs() << format("%-30s %7.2f %12.1f %13.1f %6.3f\n", static_cast<const char *>("total"), SumMB,
                   SumMB / SumOurs, SumMB / SumTheirs, SumTheirs / SumOurs);
  outs() << "ratio = llvm-as time / llquote time (1.0 = as fast as llvm-as)\n";
  return 0;
}
