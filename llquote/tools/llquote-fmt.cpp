//===- llquote-fmt.cpp - Expand llquote dialect text to LLVM IR -----------===//
//
// Reads a file in the llquote dialect (plain LLVM 19 IR included), builds
// the verified module, optionally optimises it with the new pass manager on
// the TargetMachine of the triple it names (else the host's), and prints it
// as LLVM IR, assembly or an object file. Errors are printed as
// `file:line:col: error: ...` and exit with 1.
//
// No LLVM abort reaches the user: a call to another target's intrinsic is
// refused, located, before code generation; any fatal error LLVM still
// raises (report_fatal_error) is printed as one error line, and the tool
// exits with 1 without a stack dump and without writing a partial output.
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include "llquote/Template.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace llvm;

namespace {
cl::OptionCategory FmtCategory("llquote-fmt options");

cl::list<std::string> Inputs(cl::Positional,
                             cl::desc("<input dialect file | -> (with --check: "
                                      "<C++ files...>)"),
                             cl::cat(FmtCategory));
cl::opt<bool> Check("check",
                    cl::desc("Check the LLQ_SKELETON templates of the given "
                             "C++ sources, antiquotes unbound; print nothing "
                             "if all are well formed"),
                    cl::cat(FmtCategory));
cl::opt<std::string> OutputFilename("o", cl::desc("Output file (default: stdout)"),
                                    cl::value_desc("filename"), cl::init("-"),
                                    cl::cat(FmtCategory));
cl::opt<char> OptLevel("O",
                       cl::desc("Optimization level: -O0, -O1, -O2 or -O3 "
                                "(default: no optimization pipeline)"),
                       cl::Prefix, cl::init(' '), cl::cat(FmtCategory));

enum class EmitKind { LLVM, Asm, Obj };
cl::opt<EmitKind> Emit("emit", cl::desc("What to print"),
                       cl::values(clEnumValN(EmitKind::LLVM, "llvm", "LLVM IR (default)"),
                                  clEnumValN(EmitKind::Asm, "asm", "target assembly"),
                                  clEnumValN(EmitKind::Obj, "obj", "an object file")),
                       cl::init(EmitKind::LLVM), cl::cat(FmtCategory));
cl::opt<std::string> MCPU("mcpu", cl::desc("Target CPU (default: the host's)"),
                          cl::value_desc("cpu-name"), cl::cat(FmtCategory));
cl::opt<std::string> MTriple("mtriple",
                             cl::desc("Target triple (default: the module's, "
                                      "else the host's)"),
                             cl::value_desc("triple"), cl::cat(FmtCategory));

cl::opt<bool> AllowUndef("allow-undef",
                         cl::desc("Read a variable that is not assigned on "
                                  "every path as poison instead of failing"),
                         cl::cat(FmtCategory));

cl::opt<llq::SSAMode> SSA(
    "ssa", cl::desc("How reassigned variables become SSA"),
    cl::values(clEnumValN(llq::SSAMode::Braun, "braun",
                          "Braun et al. 2013, minimal (default)"),
               clEnumValN(llq::SSAMode::Mem2Reg, "mem2reg",
                          "reference: stack slots, then LLVM's mem2reg")),
    cl::init(llq::SSAMode::Braun), cl::cat(FmtCategory));

cl::opt<bool> TimePhases("time-phases",
                         cl::desc("Print the time of each phase of the front "
                                  "end (read, lower, assemble, SSA, verify) "
                                  "on standard error"),
                         cl::cat(FmtCategory));

cl::list<std::string> Defines(
    "D", cl::Prefix,
    cl::desc("Bind antiquote NAME to TEXT, read according to the antiquote's "
             "kind; NAME=@FILE reads TEXT from FILE"),
    cl::value_desc("NAME=TEXT"), cl::cat(FmtCategory));

const char *ToolName = "llquote-fmt";

int fail(const Twine &Message) {
  WithColor::error(errs(), ToolName) << Message << "\n";
  return 1;
}

int reportError(Error E) {
  int Status = 1;
  handleAllErrors(
      std::move(E),
      [&](const llq::DiagnosticError &D) {
        D.print(errs(), errs().has_colors());
      },
      [&](const ErrorInfoBase &Other) { fail(Other.message()); });
  return Status;
}

CodeGenOptLevel codeGenLevel() {
  switch (OptLevel) {
  case '0':
  case ' ':
    return CodeGenOptLevel::None;
  case '1':
    return CodeGenOptLevel::Less;
  case '3':
    return CodeGenOptLevel::Aggressive;
  default:
    return CodeGenOptLevel::Default;
  }
}

/// The machine --mtriple names, else the module's triple, else the host's;
/// for the host, its CPU and features unless --mcpu names a CPU. Built from
/// the target registry, not for the JIT, so that any registered target
/// (NVPTX, which has no JIT) can emit assembly.
Expected<std::unique_ptr<TargetMachine>> createTargetMachine(const Module &M) {
  std::string TripleName = MTriple.empty() ? M.getTargetTriple() : MTriple;
  Triple HostTriple(sys::getProcessTriple());
  Triple TT = TripleName.empty() ? HostTriple : Triple(Triple::normalize(TripleName));
  std::string CPU = MCPU;
  SubtargetFeatures Features;
  if (TT == HostTriple && CPU.empty()) {
    CPU = sys::getHostCPUName().str();
    for (const auto &Feature : sys::getHostCPUFeatures())
      Features.AddFeature(Feature.first(), Feature.second);
  }
  std::string Why;
  const Target *T = TargetRegistry::lookupTarget(TT.str(), Why);
  if (!T)
    return createStringError(inconvertibleErrorCode(),
                             "no target for '" + TT.str() + "': " + Why);
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(
      TT.str(), CPU, Features.getString(), TargetOptions(), Reloc::PIC_,
      std::nullopt, codeGenLevel()));
  if (!TM)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create a target machine for '" +
                                 TT.str() + "'");
  return std::move(TM);
}

/// LLVM's fatal errors (report_fatal_error, such as the instruction
/// selector's "Cannot select") would print "LLVM ERROR" and abort with a
/// stack dump. The tool prints one error line instead, removes the output
/// file it was writing, and exits with 1. Nothing is printed to stdout: the
/// output is buffered until code generation has finished.
void onFatalError(void *, const char *Reason, bool) {
  // Some reasons end in a newline of their own.
  fail(StringRef(Reason).rtrim());
  sys::RunInterruptHandlers();
  sys::Process::Exit(1);
}

/// --check: every template of every C++ file; all errors are printed.
int checkCppFiles() {
  if (Inputs.empty())
    return fail("--check needs the C++ files to check");
  int Status = 0;
  for (const std::string &File : Inputs) {
    auto Buf = MemoryBuffer::getFile(File, /*IsText=*/true);
    if (!Buf) {
      Status = fail("cannot read '" + File + "': " + Buf.getError().message());
      continue;
    }
    if (Error E = llq::checkTemplatesInCpp((*Buf)->getBuffer(), File))
      Status = reportError(std::move(E));
  }
  return Status;
}

void optimize(Module &M, TargetMachine &TM) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB(&TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  OptimizationLevel Level = OptLevel == '1'   ? OptimizationLevel::O1
                            : OptLevel == '2' ? OptimizationLevel::O2
                            : OptLevel == '3' ? OptimizationLevel::O3
                                              : OptimizationLevel::O0;
  ModulePassManager MPM = Level == OptimizationLevel::O0
                              ? PB.buildO0DefaultPipeline(Level)
                              : PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(M, MAM);
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  install_fatal_error_handler(onFatalError);
  cl::HideUnrelatedOptions(FmtCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "llquote-fmt: expand llquote dialect text into LLVM IR\n\n"
      "  Reads the dialect (a superset of LLVM 19 textual IR), builds and\n"
      "  verifies the module, and prints it.\n");
  if (Check)
    return checkCppFiles();
  if (Inputs.size() > 1)
    return fail("one input file at a time (or --check with C++ files)");
  std::string InputFilename = Inputs.empty() ? "-" : Inputs.front();
  if (OptLevel != ' ' && (OptLevel < '0' || OptLevel > '3'))
    return fail("invalid optimization level -O" + Twine(OptLevel) +
                "; expected -O0, -O1, -O2 or -O3");

  ErrorOr<std::unique_ptr<MemoryBuffer>> Input =
      MemoryBuffer::getFileOrSTDIN(InputFilename, /*IsText=*/true);
  if (std::error_code EC = Input.getError())
    return fail("cannot read '" + InputFilename + "': " + EC.message());

  llq::Bindings Bound;
  for (StringRef D : Defines) {
    auto [Name, Text] = D.split('=');
    if (Name.empty() || Name.size() == D.size())
      return fail("-D" + D + ": expected NAME=TEXT or NAME=@FILE");
    std::string Value = Text.str();
    std::string Origin;
    if (Text.consume_front("@")) {
      Origin = Text.str();
      auto File = MemoryBuffer::getFile(Text, /*IsText=*/true);
      if (!File)
        return fail("-D" + Name + ": cannot read '" + Text + "': " +
                    File.getError().message());
      Value = (*File)->getBuffer().str();
    }
    Bound.insert_or_assign(
        Name, llq::Binding::source(std::move(Value), std::move(Origin)));
  }

  LLVMContext Ctx;
  SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Input), SMLoc());
  llq::FrontendOptions Opts;
  Opts.AllowUndef = AllowUndef;
  Opts.SSA = SSA;
  Opts.TimePhases = TimePhases;
  if (!Defines.empty())
    Opts.Bound = &Bound;
  Expected<std::unique_ptr<Module>> M = llq::parseModule(SM, ID, Ctx, Opts);
  if (!M)
    return reportError(M.takeError());

  bool NeedsTarget = OptLevel != ' ' || Emit != EmitKind::LLVM ||
                     !MCPU.empty() || !MTriple.empty();
  std::unique_ptr<TargetMachine> TM;
  if (NeedsTarget) {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    // Objects with inline assembly need the target's assembly parser.
    InitializeAllAsmParsers();
    Expected<std::unique_ptr<TargetMachine>> TMOrErr = createTargetMachine(**M);
    if (!TMOrErr)
      return fail(toString(TMOrErr.takeError()));
    TM = std::move(*TMOrErr);
    // Only code generation chokes on another target's intrinsic; IR output
    // may hold one (a module for the GPU, printed on the host).
    if (Emit != EmitKind::LLVM)
      if (Error E = llq::checkTargetIntrinsics(**M, TM->getTargetTriple(), SM, ID))
        return reportError(std::move(E));
    // A module that names no target takes the machine's; one that does
    // keeps its own, so nothing the user wrote is changed.
    if ((*M)->getTargetTriple().empty())
      (*M)->setTargetTriple(TM->getTargetTriple().str());
    if ((*M)->getDataLayoutStr().empty())
      (*M)->setDataLayout(TM->createDataLayout());
  }
  if (OptLevel != ' ')
    optimize(**M, *TM);

  std::error_code EC;
  sys::fs::OpenFlags Flags =
      Emit == EmitKind::Obj ? sys::fs::OF_None : sys::fs::OF_Text;
  ToolOutputFile Out(OutputFilename, EC, Flags);
  if (EC)
    return fail("cannot open '" + OutputFilename + "': " + EC.message());
  if (Emit == EmitKind::LLVM) {
    (*M)->print(Out.os(), nullptr);
  } else {
    SmallVector<char, 0> Code;
    raw_svector_ostream CodeStream(Code);
    legacy::PassManager PM;
    CodeGenFileType FT = Emit == EmitKind::Asm ? CodeGenFileType::AssemblyFile
                                               : CodeGenFileType::ObjectFile;
    if (TM->addPassesToEmitFile(PM, CodeStream, nullptr, FT))
      return fail("the target cannot emit this file type");
    PM.run(**M);
    Out.os() << StringRef(Code.data(), Code.size());
  }
  Out.keep();
  return 0;
}
