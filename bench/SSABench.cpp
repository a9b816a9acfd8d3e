//===- SSABench.cpp - Braun et al. against LLVM's PromoteMemToReg ---------===//
//
// For each dialect file, two comparisons, each interleaved (Measure.h):
//
// 1. SSA construction, on the same IR read once by LLVM with the
//    placeholders of lowering (PrintFlat.h), cloned before the clock starts.
//    Braun: restoreSSA, Braun et al.'s builder on LLVM's blocks and values.
//    LLVM: restoreSSA in the reference mode, a stack slot per variable with
//    its loads and stores, then PromoteMemToReg with the DominatorTree it
//    needs: what LLVM's mem2reg pass does. Both sides find the placeholders,
//    check types and name the versions alike, so the ratio is that of the
//    two constructions.
// 2. The whole front end, text to verified module, with --ssa=braun and with
//    --ssa=mem2reg, and the time per source line of each: on the generated
//    nested*.ll inputs (bench/gen_nested.py, 10k to 80k lines of one
//    function) it stays flat when lowering is linear.
// 3. The yardstick for 2: LLVM's own reader and verifier on the IR the front
//    end makes of each nested input. No algorithm in it grows faster than
//    its input, so the growth of its time per line from 10k to 80k lines is
//    what the caches alone cost on this machine.
// 4. Flatness (--flatness, a run of its own): time per line of the largest
//    nested input over that of the smallest, for each of the above. The two
//    inputs run back to back in each repetition, alternating which goes
//    first, and the ratio is taken per repetition, as every other ratio
//    here: measured in sections apart, a machine that slows down between
//    them would tilt the ratio. The run loads only those two inputs: in a
//    process that also holds the modules of sections 1 to 3 (2 GB of IR),
//    the allocator's free lists grow with that history, and the largest
//    input's time per line measures them, not lowering (1.53 there against
//    1.20 alone, same build, same hour).
//
// Every ratio is printed as its median over --reps repetitions and its range.
//
//===----------------------------------------------------------------------===//

#include "Assemble.h"
#include "Lower.h"
#include "Measure.h"
#include "ReadIR.h"
#include "Parse.h"
#include "RestoreSSA.h"
#include "llquote/Frontend.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <map>

using namespace llvm;
using namespace llq::bench;

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.ll>..."),
                                    cl::OneOrMore);
static cl::opt<bool>
    FlatnessOnly("flatness",
                 cl::desc("Only section 4, on the smallest and largest "
                          "nested*.ll inputs given"));
static cl::opt<unsigned> Reps("reps", cl::desc("Repetitions per file and side"),
                              cl::init(7));

static ExitOnError Check("llquote_bench_ssa: ");

/// One input, parsed once for the construction comparison.
struct Input {
  std::string Name;
  std::unique_ptr<MemoryBuffer> Buf;
  unsigned Lines = 0;
  SourceMgr SM;
  unsigned ID = 0;
  std::unique_ptr<llq::SyntaxTree> Tree;
  LLVMContext Ctx;
  llq::LoweredText Lowered;
  std::unique_ptr<Module> Placeholders;
  /// The front end's output, printed: the yardstick's input.
  std::string Result;
};

static void load(Input &In, const std::string &Path) {
  In.Name = sys::path::filename(Path).str();
  In.Buf = Check(errorOrToExpected(MemoryBuffer::getFile(Path, true)));
  In.Lines = In.Buf->getBuffer().count('\n');
  In.ID = In.SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBuffer(In.Buf->getMemBufferRef()), SMLoc());
  In.Tree = std::make_unique<llq::SyntaxTree>(In.Buf->getBuffer());
  Check(llq::parseSyntax(*In.Tree, In.SM, In.ID));
  In.Lowered = Check(llq::lowerSyntax(*In.Tree, In.SM, In.ID));
  In.Placeholders =
      Check(llq::assembleModule(In.Lowered, In.SM, In.ID, In.Ctx));
}

/// SSA construction alone on copies of \p In's IR with placeholders, cloned
/// before the clock starts.
static BatchFn restoreFn(Input &In, bool Mem2Reg) {
  return [&In, Mem2Reg](unsigned Batch) {
    std::vector<std::unique_ptr<Module>> Copies;
    for (unsigned I = 0; I < Batch; ++I)
      Copies.push_back(CloneModule(*In.Placeholders));
    llq::RestoreOptions Opts;
    Opts.Mem2Reg = Mem2Reg;
    return seconds([&] {
      for (auto &M : Copies)
        Check(llq::restoreSSA(*M, In.Lowered, Opts, In.SM, In.ID, nullptr));
    });
  };
}

/// The whole front end on \p In's text, in SSA mode \p M.
static BatchFn frontEndFn(Input &In, llq::SSAMode M) {
  return batched([&In, M] {
    llq::FrontendOptions Opts;
    Opts.SSA = M;
    LLVMContext Ctx;
    auto Mod = llq::parseModuleString(In.Buf->getBuffer(), In.Name, Ctx, Opts);
    if (!Mod)
      Check(Mod.takeError());
  });
}

/// LLVM's reader and verifier on the IR the front end makes of \p In.
static BatchFn readerFn(Input &In) {
  if (In.Result.empty()) {
    LLVMContext Ctx;
    auto M = Check(llq::parseModuleString(In.Buf->getBuffer(), In.Name, Ctx));
    raw_string_ostream OS(In.Result);
    M->print(OS, nullptr);
  }
  return batched([&In] { readAndVerify(In.Result); });
}

static void construction(Input &In) {
  BatchFn Braun = restoreFn(In, false), LLVM = restoreFn(In, true);
  Paired P = comparePaired(Braun, LLVM, Reps);
  outs() << format("%-26s %24s %24s %22s\n", In.Name.c_str(),
                   spread(P.a(), 3, 1e3).c_str(), spread(P.b(), 3, 1e3).c_str(),
                   spread(P.ratioAB(), 2).c_str());
}

static void frontEnd(Input &In) {
  Paired P = comparePaired(frontEndFn(In, llq::SSAMode::Braun),
                           frontEndFn(In, llq::SSAMode::Mem2Reg), Reps);
  double L = In.Lines;
  outs() << format("%-26s %7u %24s %24s %10.2f %10.2f %20s\n", In.Name.c_str(),
                   In.Lines, spread(P.a(), 2, 1e3).c_str(),
                   spread(P.b(), 2, 1e3).c_str(), P.a().Median / L * 1e6,
                   P.b().Median / L * 1e6, spread(P.ratioAB(), 2).c_str());
}

static void yardstick(Input &In) {
  BatchFn Reader = readerFn(In);
  unsigned OutLines = StringRef(In.Result).count('\n');
  Paired P = comparePaired(frontEndFn(In, llq::SSAMode::Braun), Reader, Reps);
  outs() << format("%-26s %7u %24s %24s %10.2f %20s\n", In.Name.c_str(),
                   OutLines, spread(P.a(), 2, 1e3).c_str(),
                   spread(P.b(), 2, 1e3).c_str(),
                   P.b().Median / In.Lines * 1e6, spread(P.ratioAB(), 2).c_str());
}

/// Section 4: time per line of \p Large over that of \p Small, per
/// repetition, for each side of sections 1 to 3.
static void flatness(Input &Small, Input &Large) {
  outs() << format("\n4. Time per line, %u lines against %u lines (1.0 = "
                   "linear), the two run back to back\n   in each repetition\n",
                   Large.Lines, Small.Lines);
  double PerLine = double(Small.Lines) / Large.Lines;
  auto Row = [&](const char *What, const BatchFn &S, const BatchFn &L) {
    Summary R = comparePaired(L, S, Reps).ratioAB();
    R = {R.Median * PerLine, R.Min * PerLine, R.Max * PerLine};
    outs() << format("%-56s %20s\n", What, spread(R, 2).c_str());
  };
  Row("whole front end, --ssa=braun", frontEndFn(Small, llq::SSAMode::Braun),
      frontEndFn(Large, llq::SSAMode::Braun));
  Row("whole front end, --ssa=mem2reg",
      frontEndFn(Small, llq::SSAMode::Mem2Reg),
      frontEndFn(Large, llq::SSAMode::Mem2Reg));
  Row("LLVM's reader + verifier on the front end's output", readerFn(Small),
      readerFn(Large));
  Row("SSA construction alone: braun", restoreFn(Small, false),
      restoreFn(Large, false));
  Row("SSA construction alone: LLVM's PromoteMemToReg", restoreFn(Small, true),
      restoreFn(Large, true));
}

/// format() takes pointers, not arrays.
static const char *C(const char *S) { return S; }

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "Braun et al. vs PromoteMemToReg\n");
  if (FlatnessOnly) {
    // Lines per nested input, read before any is loaded.
    std::vector<std::pair<unsigned, std::string>> Nested;
    for (const std::string &Path : Inputs)
      if (sys::path::filename(Path).starts_with("nested")) {
        auto Buf = Check(errorOrToExpected(MemoryBuffer::getFile(Path)));
        Nested.push_back({unsigned(Buf->getBuffer().count('\n')), Path});
      }
    if (Nested.size() < 2)
      Check(createStringError("--flatness needs two nested*.ll inputs"));
    llvm::sort(Nested);
    auto Small = std::make_unique<Input>(), Large = std::make_unique<Input>();
    load(*Small, Nested.front().second);
    load(*Large, Nested.back().second);
    outs() << "Every figure: median [min-max] over " << Reps
           << " interleaved repetitions.\n";
    flatness(*Small, *Large);
    return 0;
  }
  std::vector<std::unique_ptr<Input>> All;
  for (const std::string &Path : Inputs) {
    All.push_back(std::make_unique<Input>());
    load(*All.back(), Path);
  }
  outs() << "Every figure: median [min-max] over " << Reps
         << " interleaved repetitions.\n\n"
         << "1. SSA construction on the IR read with placeholders: Braun "
            "et al. against LLVM's\n   PromoteMemToReg + DominatorTree on "
            "stack slots for the same variables\n";
  outs() << format("%-26s %24s %24s %22s\n", C("file"), C("braun ms"),
                   C("PromoteMemToReg ms"), C("braun/LLVM"));
  for (auto &In : All)
    construction(*In);
  outs() << "\n2. Whole front end (parse, lower, assemble, verify): --ssa=braun "
            "against --ssa=mem2reg\n";
  outs() << format("%-26s %7s %24s %24s %10s %10s %20s\n", C("file"),
                   C("lines"), C("braun ms"), C("mem2reg ms"), C("braun us/l"),
                   C("m2r us/l"), C("braun/mem2reg"));
  for (auto &In : All)
    frontEnd(*In);
  outs() << "\n3. The yardstick: LLVM's reader + verifier (parseAssemblyString, "
            "verifyModule) on the\n   IR the front end makes of each nested "
            "input, against the whole front end (--ssa=braun)\n";
  outs() << format("%-26s %7s %24s %24s %10s %20s\n", C("file"),
                   C("IR lines"), C("front end ms"), C("LLVM reader ms"),
                   C("reader us/l"), C("front end/reader"));
  for (auto &In : All)
    if (StringRef(In->Name).starts_with("nested"))
      yardstick(*In);
  outs() << "\n4. Time per line: the run with --flatness\n";
  return 0;
}
