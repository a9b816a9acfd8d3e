//===- ParseThroughput.cpp - Front-end throughput against llvm-as ---------===//
//
// For each input file, measures in one process, interleaved, the time from
// text to a verified module:
//   llquote  llq::parseModule (lex, parse, lower, assemble, verify)
//   llvm-as  llvm::parseAssembly + llvm::verifyModule, what llvm-as does
//            before writing bitcode
// and prints MB/s for both and the ratio llvm-as time / llquote time, each
// as a median with its range over --reps interleaved repetitions (Measure.h).
//
//===----------------------------------------------------------------------===//

#include "Measure.h"
#include "llquote/Frontend.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

using namespace llvm;

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.ll>..."),
                                    cl::OneOrMore);
static cl::opt<unsigned> Reps("reps", cl::desc("Runs per file and tool"),
                              cl::init(7));

using namespace llq::bench;

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "llquote parse throughput benchmark\n");
  outs() << "median [min-max] over " << Reps << " interleaved repetitions\n";
  outs() << "file                              MB   llquote MB/s  llvm-as MB/s"
            "   ratio llvm-as/llquote\n";
  std::vector<double> SumOurs(Reps), SumTheirs(Reps);
  double SumMB = 0;
  for (const std::string &Path : Inputs) {
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf) {
      errs() << Path << ": " << Buf.getError().message() << "\n";
      return 1;
    }
    StringRef Text = (*Buf)->getBuffer();
    double MB = Text.size() / 1e6;
    BatchFn Ours = batched([&] {
      LLVMContext Ctx;
      auto M = llq::parseModuleString(Text, Path, Ctx);
      if (!M) {
        logAllUnhandledErrors(M.takeError(), errs());
        exit(1);
      }
    });
    BatchFn Theirs = batched([&] {
      LLVMContext Ctx;
      SMDiagnostic Diag;
      auto M = parseAssembly(MemoryBufferRef(Text, Path), Diag, Ctx);
      if (!M || verifyModule(*M, &errs()))
        exit(1);
    });
    Paired P = comparePaired(Theirs, Ours, Reps);
    for (unsigned R = 0; R < Reps; ++R) {
      SumTheirs[R] += P.A[R];
      SumOurs[R] += P.B[R];
    }
    SumMB += MB;
    outs() << format("%-30s %7.2f %12.1f %13.1f %23s\n",
                     sys::path::filename(Path).str().c_str(), MB,
                     MB / P.b().Median, MB / P.a().Median,
                     spread(P.ratioAB(), 3).c_str());
  }
  Paired Total{SumTheirs, SumOurs};
  outs() << format("%-30s %7.2f %12.1f %13.1f %23s\n",
                   static_cast<const char *>("total"), SumMB,
                   SumMB / Total.b().Median, SumMB / Total.a().Median,
                   spread(Total.ratioAB(), 3).c_str());
  outs() << "ratio = llvm-as time / llquote time (1.0 = as fast as llvm-as)\n";
  return 0;
}
