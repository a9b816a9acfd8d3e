//===- Engine.cpp - JIT engine with memory and disk kernel caches ---------===//
//
// addModule reads top to bottom as the path a kernel takes:
//
//   key = hash(canonical IR, target, options)        computeKernelKey
//   memory cache: hit -> done; pending -> wait       KernelTable::claim
//   disk cache: valid entry -> object                DiskObjectCache
//   else, holding the entry's lock, disk again       CompileLock
//   else verify, optimise, generate code -> object   runPipeline, emitObject
//   link the object under a tracker                  LLJIT::addObjectFile
//   publish the tracker to waiting requests          KernelTable::publish
//
// The engine generates code itself (rather than through LLJIT's IR layer)
// so that it knows, and can count, which requests compiled: LLJIT only
// links the objects. KernelTable is also an ORC ResourceManager, so that
// removing a kernel's tracker evicts it from the memory cache however the
// removal is made.
//
// No LLVM fatal error ends the host: code generation (the -O pipeline and
// the instruction selector) runs under a CrashRecoveryContext, and a
// process-wide fatal error handler turns report_fatal_error ("Cannot
// select") inside it into an llvm::Error of addModule. A call to another
// target's intrinsic is refused before that. See docs/Runtime.md for what
// is discarded after a caught fatal error.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Engine.h"
#include "llquote/runtime/KernelFiles.h"
#include "KernelCache.h"
#include "ApproxMath.h"
#include "VectorMath.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <cstdlib>
#include <map>
#include <mutex>
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define LLQ_HAS_LSAN 1
#endif
#endif
#if !defined(LLQ_HAS_LSAN) && defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LLQ_HAS_LSAN 1
#endif

using namespace llvm;

namespace llq::rt {

//===----------------------------------------------------------------------===//
// The memory cache
//===----------------------------------------------------------------------===//

namespace detail {

/// Kernels known to the engine, per JITDylib and key. An entry is created
/// Pending by the request that will build it; requests arriving meanwhile
/// wait on Settled instead of building it again.
class KernelTable : public orc::ResourceManager {
public:
  struct Entry {
    enum class State { Pending, Ready, Failed };
    State St = State::Pending;
    orc::JITDylib *JD = nullptr;
    KernelKey Key{};
    /// Null once the resources moved to another tracker (transferTo).
    orc::ResourceTrackerSP Tracker;
    orc::ResourceKey Owner = 0;
    std::string Failure;
  };

  /// What claim found, copied under the lock.
  struct Claim {
    /// Non-null: nobody had the kernel, and this Pending entry is the
    /// caller's to build, then publish or abandon.
    std::shared_ptr<Entry> Build;
    /// Otherwise: the kernel's tracker, or why building it failed.
    orc::ResourceTrackerSP Tracker;
    std::optional<std::string> Failure;
  };

  /// Waits while another request builds the kernel (JD, Key).
  Claim claim(orc::JITDylib &JD, const KernelKey &Key);
  /// Makes E Ready, owned by RT. Fails if RT was removed meanwhile.
  Error publish(const std::shared_ptr<Entry> &E, orc::ResourceTrackerSP RT);
  /// Makes E Failed and forgets it, so that a later request tries again.
  void abandon(const std::shared_ptr<Entry> &E, std::string Why);
  /// Drops every entry, and so every tracker reference the table holds.
  void clear();

  Error handleRemoveResources(orc::JITDylib &JD, orc::ResourceKey K) override;
  void handleTransferResources(orc::JITDylib &JD, orc::ResourceKey DstK,
                               orc::ResourceKey SrcK) override;

private:
  using EntryId = std::pair<orc::JITDylib *, KernelKey>;
  using OwnerId = std::pair<orc::JITDylib *, orc::ResourceKey>;

  using DropList = std::vector<std::shared_ptr<Entry>>;

  /// Moves E out of Entries, if it is still there, into Dropped.
  void forget(const std::shared_ptr<Entry> &E, DropList &Dropped);
  /// E is still the table's entry for its kernel. Requires Mutex.
  bool isCurrent(const std::shared_ptr<Entry> &E) const;
  /// E is being built, or its tracker is on its way out. Requires Mutex.
  bool unsettled(const std::shared_ptr<Entry> &E) const;

  // Lock order: ORC calls the two handlers, and publish calls
  // withResourceKeyDo, with the session lock held, and they then take Mutex;
  // so nothing here calls into ORC while holding Mutex. That includes
  // dropping a tracker reference, since dropping the last one calls
  // ExecutionSession::destroyResourceTracker: entries leaving the table are
  // moved to a Dropped vector declared before the lock, and so destroyed
  // after it is released.
  std::mutex Mutex;
  std::condition_variable Settled;
  std::map<EntryId, std::shared_ptr<Entry>> Entries;
  /// The keys each tracker owns, so that removing it finds them.
  std::map<OwnerId, std::vector<KernelKey>> Owned;
};

KernelTable::Claim KernelTable::claim(orc::JITDylib &JD, const KernelKey &Key) {
  std::unique_lock<std::mutex> Lock(Mutex);
  for (;;) {
    auto It = Entries.find({&JD, Key});
    if (It == Entries.end()) {
      auto E = std::make_shared<Entry>();
      E->JD = &JD;
      E->Key = Key;
      Entries.emplace(EntryId{&JD, Key}, E);
      return Claim{E, nullptr, std::nullopt};
    }
    std::shared_ptr<Entry> E = It->second;
    // Wait while another request builds the kernel, and while its tracker
    // is being removed or moved: ORC marks a tracker defunct before it calls
    // the handlers below, which then settle the entry and notify.
    Settled.wait(Lock, [&] { return !unsettled(E); });
    if (E->St == Entry::State::Failed)
      return Claim{nullptr, nullptr, E->Failure};
    if (!isCurrent(E))
      continue; // Removed meanwhile: look again, and build it afresh.
    return Claim{nullptr, E->Tracker, std::nullopt};
  }
}

bool KernelTable::isCurrent(const std::shared_ptr<Entry> &E) const {
  auto It = Entries.find({E->JD, E->Key});
  return It != Entries.end() && It->second == E;
}

bool KernelTable::unsettled(const std::shared_ptr<Entry> &E) const {
  if (E->St == Entry::State::Pending)
    return true;
  return E->St == Entry::State::Ready && E->Tracker &&
         E->Tracker->isDefunct() && isCurrent(E);
}

Error KernelTable::publish(const std::shared_ptr<Entry> &E,
                           orc::ResourceTrackerSP RT) {
  // withResourceKeyDo runs under the session lock, so a removal of RT either
  // happens before (and this fails) or after (and finds the entry to evict).
  Error Err = RT->withResourceKeyDo([&](orc::ResourceKey K) {
    std::lock_guard<std::mutex> Lock(Mutex);
    E->Tracker = RT;
    E->Owner = K;
    E->St = Entry::State::Ready;
    Owned[{E->JD, K}].push_back(E->Key);
  });
  if (Err) {
    std::string Why = toString(std::move(Err));
    abandon(E, Why);
    return createStringError(inconvertibleErrorCode(),
                             "kernel removed while it was being added: " + Why);
  }
  Settled.notify_all();
  return Error::success();
}

void KernelTable::abandon(const std::shared_ptr<Entry> &E, std::string Why) {
  DropList Dropped;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    E->St = Entry::State::Failed;
    E->Failure = std::move(Why);
    forget(E, Dropped);
  }
  Settled.notify_all();
}

void KernelTable::forget(const std::shared_ptr<Entry> &E, DropList &Dropped) {
  auto It = Entries.find({E->JD, E->Key});
  if (It != Entries.end() && It->second == E) {
    Dropped.push_back(std::move(It->second));
    Entries.erase(It);
  }
}

void KernelTable::clear() {
  std::map<EntryId, std::shared_ptr<Entry>> Dropped;
  std::lock_guard<std::mutex> Lock(Mutex);
  Dropped.swap(Entries);
  Owned.clear();
}

Error KernelTable::handleRemoveResources(orc::JITDylib &JD,
                                         orc::ResourceKey K) {
  DropList Dropped;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Owned.find({&JD, K});
    if (It == Owned.end())
      return Error::success();
    for (const KernelKey &Key : It->second) {
      auto E = Entries.find({&JD, Key});
      // The key may have been rebuilt under another tracker since.
      if (E != Entries.end() && E->second->Owner == K &&
          E->second->St == Entry::State::Ready) {
        Dropped.push_back(std::move(E->second));
        Entries.erase(E);
      }
    }
    Owned.erase(It);
  }
  Settled.notify_all();
  return Error::success();
}

void KernelTable::handleTransferResources(orc::JITDylib &JD,
                                          orc::ResourceKey DstK,
                                          orc::ResourceKey SrcK) {
  std::vector<orc::ResourceTrackerSP> Dropped;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Owned.find({&JD, SrcK});
    if (It == Owned.end())
      return;
    std::vector<KernelKey> &To = Owned[{&JD, DstK}];
    for (const KernelKey &Key : It->second) {
      auto E = Entries.find({&JD, Key});
      if (E == Entries.end() || E->second->Owner != SrcK)
        continue;
      // The destination tracker cannot be named from its key, so hits
      // return none (the move leaves Tracker null); the code stays cached
      // and is evicted when DstK is removed.
      E->second->Owner = DstK;
      Dropped.push_back(std::move(E->second->Tracker));
      To.push_back(Key);
    }
    Owned.erase(It);
  }
  Settled.notify_all();
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Settings from options and the environment
//===----------------------------------------------------------------------===//

llvm::Expected<unsigned> parseOptLevel(StringRef Text) {
  if (Text.size() == 1 && Text[0] >= '0' && Text[0] <= '3')
    return unsigned(Text[0] - '0');
  return createStringError(inconvertibleErrorCode(),
                           "LLQ_OPT_LEVEL='" + Text +
                               "': expected 0, 1, 2 or 3");
}

llvm::Expected<bool> parseSwitch(StringRef Variable, StringRef Text) {
  if (Text == "1" || Text.equals_insensitive("on"))
    return true;
  if (Text == "0" || Text.equals_insensitive("off"))
    return false;
  return createStringError(inconvertibleErrorCode(),
                           Variable + "='" + Text +
                               "': expected 1, on, 0 or off");
}

llvm::Expected<uint64_t> parseSize(StringRef Variable, StringRef Text) {
  StringRef Digits = Text;
  uint64_t Unit = 1;
  if (!Digits.empty()) {
    switch (toLower(Digits.back())) {
    case 'k':
      Unit = uint64_t(1) << 10;
      break;
    case 'm':
      Unit = uint64_t(1) << 20;
      break;
    case 'g':
      Unit = uint64_t(1) << 30;
      break;
    }
    if (Unit != 1)
      Digits = Digits.drop_back();
  }
  uint64_t Value = 0;
  bool Digital = !Digits.empty() && llvm::all_of(Digits, isDigit);
  if (!Digital || Digits.getAsInteger(10, Value) ||
      Value > UINT64_MAX / Unit)
    return createStringError(inconvertibleErrorCode(),
                             Variable + "='" + Text +
                                 "': expected a size in bytes, such as "
                                 "500M or 2G (K, M, G: powers of 1024)");
  return Value * Unit;
}

namespace {

/// An environment variable; empty counts as unset, so that `VAR= program`
/// means the default.
std::optional<std::string> getEnv(const char *Name) {
  const char *Value = std::getenv(Name);
  if (!Value || !*Value)
    return std::nullopt;
  return std::string(Value);
}

/// The engine's choices, each from its option, its variable or its default.
struct Settings {
  std::string CPU; ///< Empty: the host's CPU and features.
  std::string CPUSource;
  unsigned OptLevel = 3;
  bool Verbose = false;
  std::string CacheRoot; ///< Empty: no disk cache.
  detail::DiskLimits Limits;
};

/// The default bound of a disk cache directory: a few thousand kernels.
constexpr uint64_t DefaultCacheMaxSize = uint64_t(256) << 20;

llvm::Expected<std::string> cacheRoot(const EngineOptions &Options) {
  std::optional<std::string> Root = Options.CacheDir;
  if (!Root || Root->empty())
    Root = getEnv("LLQ_CACHE_DIR");
  if (!Root) {
    // The XDG base directory spec ignores a relative XDG_CACHE_HOME.
    std::optional<std::string> Xdg = getEnv("XDG_CACHE_HOME");
    std::optional<std::string> Home = getEnv("HOME");
    SmallString<256> Path;
    if (Xdg && sys::path::is_absolute(*Xdg))
      sys::path::append(Path, *Xdg, "llquote");
    else if (Home)
      sys::path::append(Path, *Home, ".cache", "llquote");
    else
      return std::string();
    return std::string(Path);
  }
  // Fix a relative root now, so that a later chdir does not move the cache.
  SmallString<256> Path(*Root);
  if (std::error_code EC = sys::fs::make_absolute(Path))
    return createStringError(EC, "cache directory '" + *Root + "'");
  return std::string(Path);
}

llvm::Expected<unsigned> optLevelFrom(const EngineOptions &Options) {
  if (Options.OptLevel) {
    if (*Options.OptLevel > 3)
      return createStringError(inconvertibleErrorCode(),
                               "EngineOptions::OptLevel is " +
                                   Twine(*Options.OptLevel) +
                                   ", expected 0 to 3");
    return *Options.OptLevel;
  }
  if (std::optional<std::string> Env = getEnv("LLQ_OPT_LEVEL"))
    return parseOptLevel(*Env);
  return 3;
}

llvm::Expected<bool> switchFrom(std::optional<bool> Option,
                                const char *Variable, bool Default) {
  if (Option)
    return *Option;
  if (std::optional<std::string> Env = getEnv(Variable))
    return parseSwitch(Variable, *Env);
  return Default;
}

llvm::Expected<Settings> resolveSettings(const EngineOptions &Options) {
  Settings S;
  if (Options.CPU) {
    S.CPU = *Options.CPU;
    S.CPUSource = "EngineOptions::CPU";
  } else if (std::optional<std::string> Env = getEnv("LLQ_MCPU")) {
    S.CPU = *Env;
    S.CPUSource = "LLQ_MCPU";
  }
  if (S.CPU == "host" || S.CPU == "native")
    S.CPU.clear();
  llvm::Expected<unsigned> Level = optLevelFrom(Options);
  if (!Level)
    return Level.takeError();
  S.OptLevel = *Level;
  llvm::Expected<bool> Verbose =
      switchFrom(Options.Verbose, "LLQ_VERBOSE", false);
  if (!Verbose)
    return Verbose.takeError();
  S.Verbose = *Verbose;
  llvm::Expected<bool> Disk = switchFrom(Options.DiskCache, "LLQ_CACHE", true);
  if (!Disk)
    return Disk.takeError();
  if (*Disk) {
    llvm::Expected<std::string> Root = cacheRoot(Options);
    if (!Root)
      return Root.takeError();
    S.CacheRoot = std::move(*Root);
  }
  if (Options.CacheMaxSize) {
    S.Limits.MaxSize = *Options.CacheMaxSize;
  } else if (std::optional<std::string> Env = getEnv("LLQ_CACHE_MAX_SIZE")) {
    llvm::Expected<uint64_t> Size = parseSize("LLQ_CACHE_MAX_SIZE", *Env);
    if (!Size)
      return Size.takeError();
    S.Limits.MaxSize = *Size;
  } else {
    S.Limits.MaxSize = DefaultCacheMaxSize;
  }
  llvm::Expected<bool> Sync = switchFrom(Options.CacheSync, "LLQ_CACHE_SYNC", true);
  if (!Sync)
    return Sync.takeError();
  S.Limits.Sync = *Sync;
  return S;
}

Error initializeNativeTarget() {
  // The registration functions are not safe to race; engines may be created
  // from several threads.
  static const bool Failed = [] {
    return InitializeNativeTarget() || InitializeNativeTargetAsmPrinter() ||
           InitializeNativeTargetAsmParser();
  }();
  if (Failed)
    return createStringError(inconvertibleErrorCode(),
                             "LLVM has no code generator for this host");
  return Error::success();
}

/// Rejects a CPU name the target does not know: LLVM would print a warning
/// and quietly generate code for a generic CPU instead.
Error checkCPU(const Triple &TT, StringRef CPU, StringRef Source) {
  std::string Why;
  const Target *T = TargetRegistry::lookupTarget(TT.str(), Why);
  if (!T)
    return createStringError(inconvertibleErrorCode(), Why);
  std::unique_ptr<MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(TT.str(), "", ""));
  if (STI && STI->isCPUStringValid(CPU))
    return Error::success();
  return createStringError(inconvertibleErrorCode(),
                           Source + "='" + CPU + "': not a CPU of " + TT.str() +
                               " (try 'host', or a name from "
                               "llc -mcpu=help)");
}

CodeGenOptLevel codeGenLevel(unsigned OptLevel) {
  switch (OptLevel) {
  case 0:
    return CodeGenOptLevel::None;
  case 1:
    return CodeGenOptLevel::Less;
  case 2:
    return CodeGenOptLevel::Default;
  default:
    return CodeGenOptLevel::Aggressive;
  }
}

/// The host target, for the CPU and optimisation level S names.
llvm::Expected<orc::JITTargetMachineBuilder> targetFor(const Settings &S) {
  llvm::Expected<orc::JITTargetMachineBuilder> Builder =
      orc::JITTargetMachineBuilder::detectHost();
  if (!Builder)
    return Builder.takeError();
  if (!S.CPU.empty()) {
    if (Error Err = checkCPU(Builder->getTargetTriple(), S.CPU, S.CPUSource))
      return Err;
    // The host's features could name ones the chosen CPU lacks.
    Builder->setCPU(S.CPU);
    Builder->setFeatures("");
  }
  // JITLink places code anywhere in the address space: position-independent
  // code with the small code model reaches everything through the GOT. LLJIT
  // makes the same choice for the IR it compiles itself.
  Builder->setRelocationModel(Reloc::PIC_);
  Builder->setCodeModel(CodeModel::Small);
  Builder->setCodeGenOptLevel(codeGenLevel(S.OptLevel));
  return Builder;
}

//===----------------------------------------------------------------------===//
// Optimisation and code generation
//===----------------------------------------------------------------------===//

/// Grants every fast-math freedom: the flags on each floating-point
/// operation let the IR passes reassociate (and so vectorise reductions);
/// the function attributes let code generation do the same.
void enableFastMath(Module &M) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    for (const char *Attr :
         {"unsafe-fp-math", "no-infs-fp-math", "no-nans-fp-math",
          "no-signed-zeros-fp-math", "approx-func-fp-math"})
      F.addFnAttr(Attr, "true");
    for (Instruction &I : instructions(F))
      if (isa<FPMathOperator>(I))
        I.setFast(true);
  }
}

/// The new pass manager's default pipeline for OptLevel. The TargetMachine
/// gives the passes the CPU's cost model, so that the vectorisers use its
/// real vector width.
void runPassPipeline(Module &M, TargetMachine &TM, unsigned OptLevel) {
  // Declared in this order so that they are destroyed in reverse: each
  // manager's proxies refer to the ones declared before it.
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PipelineTuningOptions Tuning;
  // Clang's choices per level; PipelineTuningOptions leaves SLP off.
  Tuning.LoopVectorization = OptLevel >= 2;
  Tuning.SLPVectorization = OptLevel >= 2;
  Tuning.LoopUnrolling = OptLevel >= 2;
  Tuning.LoopInterleaving = OptLevel >= 2;
  PassBuilder PB(&TM, Tuning);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  static const OptimizationLevel Levels[] = {
      OptimizationLevel::O0, OptimizationLevel::O1, OptimizationLevel::O2,
      OptimizationLevel::O3};
  ModulePassManager MPM =
      OptLevel == 0 ? PB.buildO0DefaultPipeline(OptimizationLevel::O0)
                    : PB.buildPerModuleDefaultPipeline(Levels[OptLevel]);
  MPM.run(M, MAM);
}

/// What a cache miss does to the IR before code generation. Verifying first
/// turns a front end's mistake into an error instead of a crash in a pass.
/// Calls of exp and log that allow approximation become inline code
/// (ApproxMath.h); the other math calls that allow it learn their vector
/// variants before the vectorizers run (VectorMath.h).
Error runPipeline(Module &M, TargetMachine &TM, unsigned OptLevel,
                  bool FastMath, const detail::VectorMathLibrary &VM) {
  std::string Problems;
  raw_string_ostream ProblemStream(Problems);
  if (verifyModule(M, &ProblemStream))
    return createStringError(inconvertibleErrorCode(),
                             "invalid module: " + Problems);
  if (FastMath)
    enableFastMath(M);
  if (OptLevel > 0) {
    if (Error E = detail::expandApproxMath(M))
      return E;
    detail::annotateVectorMath(M, *TM.getMCSubtargetInfo(), VM);
  }
  runPassPipeline(M, TM, OptLevel);
  return Error::success();
}

llvm::Expected<std::unique_ptr<MemoryBuffer>> emitObject(Module &M,
                                                         TargetMachine &TM) {
  SmallVector<char, 0> Bytes;
  raw_svector_ostream OS(Bytes);
  legacy::PassManager PM;
  MCContext *Ctx = nullptr;
  if (TM.addPassesToEmitMC(PM, Ctx, OS))
    return createStringError(inconvertibleErrorCode(),
                             "the target cannot emit object files");
  PM.run(M);
  return std::make_unique<SmallVectorMemoryBuffer>(
      std::move(Bytes), M.getModuleIdentifier(),
      /*RequiresNullTerminator=*/false);
}

//===----------------------------------------------------------------------===//
// LLVM's fatal errors
//===----------------------------------------------------------------------===//

/// Where the fatal error handler puts its reason, on a thread that is
/// generating code under recoverFatalErrors; null elsewhere.
thread_local std::string *FatalReason = nullptr;

/// Inside recoverFatalErrors: keeps the reason and jumps back to RunSafely
/// (HandleExit does not return). Elsewhere it does what LLVM does without a
/// handler (print, then report_fatal_error aborts), so that the engine
/// changes nothing for the host's own use of LLVM.
void onFatalError(void *, const char *Reason, bool) {
  CrashRecoveryContext *CRC = CrashRecoveryContext::GetCurrent();
  if (FatalReason && CRC) {
    // Some reasons end in a newline of their own.
    *FatalReason = StringRef(Reason).rtrim().str();
    CRC->HandleExit(1);
  }
  errs() << "LLVM ERROR: " << Reason << "\n";
}

/// Installs the handler and enables crash recovery, once per process: both
/// are process-wide, and engines may be created from several threads.
void enableFatalErrorRecovery() {
  static const bool Done = [] {
    install_fatal_error_handler(onFatalError);
    CrashRecoveryContext::Enable();
    return true;
  }();
  (void)Done;
}

/// Keeps the first error diagnostic instead of letting LLVMContext's
/// default handler print it and exit the process (an inline assembly
/// mistake in code generation is one). Other diagnostics are left to the
/// context's own handling.
struct FirstErrorDiagnostic : DiagnosticHandler {
  std::string Message;
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() != DS_Error)
      return false;
    if (Message.empty()) {
      raw_string_ostream OS(Message);
      DiagnosticPrinterRawOStream Printer(OS);
      DI.print(Printer);
    }
    return true;
  }
};

/// Runs \p Fn with \p Ctx's error diagnostics kept; an error diagnostic, an
/// LLVM fatal error or a crash inside it comes back as an error naming
/// \p What. After one, Fn's stack was left by longjmp: what it
/// allocated is leaked (not freed: destructors did not run) and the module
/// it worked on is in whatever state the failing pass left it.
Error recoverFatalErrors(LLVMContext &Ctx, StringRef What,
                         function_ref<Error()> Fn) {
  // Ctx is the module's, held under its ThreadSafeContext's lock by the
  // caller: no other thread sees the handler swapped.
  auto Diagnostics = std::make_unique<FirstErrorDiagnostic>();
  FirstErrorDiagnostic &Diag = *Diagnostics;
  std::unique_ptr<DiagnosticHandler> Saved = Ctx.getDiagnosticHandler();
  Ctx.setDiagnosticHandler(std::move(Diagnostics));
  std::string Reason;
  Error Result = Error::success();
  CrashRecoveryContext CRC;
  FatalReason = &Reason;
#ifdef LLQ_HAS_LSAN
  // The leak after a recovered error is deliberate; it must not fail a
  // sanitizer build's tests.
  __lsan_disable();
#endif
  bool Finished = CRC.RunSafely([&] { Result = Fn(); });
#ifdef LLQ_HAS_LSAN
  __lsan_enable();
#endif
  FatalReason = nullptr;
  std::string Diagnosed = std::move(Diag.Message);
  Ctx.setDiagnosticHandler(std::move(Saved));
  if (Finished && !Diagnosed.empty()) {
    consumeError(std::move(Result));
    return createStringError(inconvertibleErrorCode(),
                             "error in " + What + ": " + Diagnosed);
  }
  if (Finished)
    return Result;
  // Fn never returned, so Result is still the success it started as.
  consumeError(std::move(Result));
  if (Reason.empty())
    Reason = "crashed (code " + std::to_string(CRC.RetCode) + ")";
  return createStringError(inconvertibleErrorCode(),
                           "LLVM fatal error in " + What + ": " + Reason);
}

/// Refuses a call to an intrinsic of another target than \p TT: the
/// instruction selector cannot lower it and stops with a fatal error.
Error checkIntrinsics(const Module &M, const Triple &TT) {
  StringRef Own = Triple::getArchTypePrefix(TT.getArch());
  for (const Function &F : M) {
    if (!F.isTargetIntrinsic() || F.use_empty())
      continue;
    StringRef Prefix = F.getName().drop_front(strlen("llvm.")).split('.').first;
    if (Prefix != Own)
      return createStringError(
          inconvertibleErrorCode(),
          "module calls '@" + F.getName() + "', an intrinsic of another "
          "target than " + TT.str());
  }
  return Error::success();
}

/// The first function the module exports (else the first it defines), to
/// name the kernel in the log.
std::string kernelName(const Module &M) {
  for (const Function &F : M)
    if (!F.isDeclaration() && !F.hasLocalLinkage())
      return ("@" + F.getName()).str();
  for (const Function &F : M)
    if (!F.isDeclaration())
      return ("@" + F.getName()).str();
  return "<no functions>";
}

/// "1.234 ms": the time since Start, for the log.
std::string elapsed(std::chrono::steady_clock::time_point Start) {
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  return formatv("{0:f3} ms", Ms).str();
}

} // namespace

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

Engine::Engine() = default;

Engine::~Engine() {
  if (!JIT || !Kernels)
    return;
  // The table's tracker references must go before the session they belong
  // to; deregistering first spares it the callbacks for the removals below.
  JIT->getExecutionSession().deregisterResourceManager(*Kernels);
  Kernels->clear();
  // ~LLJIT ends the session (ExecutionSession::endSession), which removes
  // every JITDylib and frees the kernels' memory; its errors go to the
  // reporter installed in initialize.
  JIT.reset();
}

llvm::Expected<std::unique_ptr<Engine>> Engine::create(EngineOptions Options) {
  std::unique_ptr<Engine> E(new Engine());
  if (Error Err = E->initialize(Options))
    return Err;
  return E;
}

Error Engine::initialize(const EngineOptions &Options) {
  llvm::Expected<Settings> S = resolveSettings(Options);
  if (!S)
    return S.takeError();
  if (Error Err = initializeNativeTarget())
    return Err;
  enableFatalErrorRecovery();
  Log = std::make_unique<detail::VerboseLog>(S->Verbose, Options.Log);

  llvm::Expected<orc::JITTargetMachineBuilder> Builder = targetFor(*S);
  if (!Builder)
    return Builder.takeError();
  TripleName = Builder->getTargetTriple().str();
  CPUName = Builder->getCPU();
  Features = Builder->getFeatures().getString();
  OptLevel = S->OptLevel;
  llvm::Expected<DataLayout> DL = Builder->getDefaultDataLayoutForTarget();
  if (!DL)
    return DL.takeError();
  Layout = *DL;
  TargetBuilder = std::make_unique<orc::JITTargetMachineBuilder>(*Builder);
  VectorMath = std::make_unique<detail::VectorMathLibrary>(
      detail::findVectorMath(Triple(TripleName)));
  if (Error Err = startJIT(std::move(*Builder)))
    return Err;

  if (!S->CacheRoot.empty())
    Disk = std::make_unique<detail::DiskObjectCache>(
        detail::cacheDirectory(S->CacheRoot, LLVM_VERSION_STRING, TripleName,
                               CPUName),
        *Log, ".o", S->Limits);
  return Error::success();
}

Error Engine::startJIT(orc::JITTargetMachineBuilder Builder) {
  llvm::Expected<std::unique_ptr<orc::LLJIT>> J =
      orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(Builder))
          .create();
  if (!J)
    return J.takeError();
  JIT = std::move(*J);
  orc::ExecutionSession &ES = JIT->getExecutionSession();
  // By default ORC prints errors it cannot return; a library may not.
  ES.setErrorReporter([this](Error Err) {
    Log->line("JIT session error: " + toString(std::move(Err)));
  });
  Kernels = std::make_unique<detail::KernelTable>();
  ES.registerResourceManager(*Kernels);

  // Kernels call back into the scheduler; absolute symbols resolve these
  // even when the executable does not export its symbols.
  orc::SymbolMap Runtime;
  auto Flags = JITSymbolFlags::Exported | JITSymbolFlags::Callable;
  Runtime[JIT->mangleAndIntern("llq_rt_report_error")] = {
      orc::ExecutorAddr::fromPtr(&llq_rt_report_error), Flags};
  Runtime[JIT->mangleAndIntern("llq_rt_cancelled")] = {
      orc::ExecutorAddr::fromPtr(&llq_rt_cancelled), Flags};
  // So are the vector math functions annotateVectorMath may name.
  for (const auto &Fn : VectorMath->Functions)
    Runtime[JIT->mangleAndIntern(Fn.getKey())] = {
        orc::ExecutorAddr(Fn.getValue()), Flags};
  return JIT->getMainJITDylib().define(
      orc::absoluteSymbols(std::move(Runtime)));
}

llvm::Expected<AddedModule> Engine::addModule(orc::ThreadSafeModule TSM,
                                              orc::ResourceTrackerSP RT,
                                              KernelOptions Options) {
  auto Start = std::chrono::steady_clock::now();
  orc::JITDylib &JD = RT ? RT->getJITDylib() : JIT->getMainJITDylib();
  detail::CodegenIdentity Id{TripleName, CPUName, Features, OptLevel,
                             Options.FastMath, VectorMath->Name};
  std::string Name;
  llvm::Expected<detail::KernelKey> Key =
      TSM.withModuleDo([&](Module &M) -> llvm::Expected<detail::KernelKey> {
        if (Error Err = adoptTarget(M))
          return Err;
        Name = kernelName(M);
        return detail::computeKernelKey(M, Id);
      });
  if (!Key)
    return Key.takeError();
  AddedModule Result;
  Result.Key = detail::toHex(*Key);
  std::string Label = "kernel " + Name + " [" + Result.Key.substr(0, 12) + "]";

  detail::KernelTable::Claim Claim = Kernels->claim(JD, *Key);
  if (Claim.Failure)
    return createStringError(inconvertibleErrorCode(), *Claim.Failure);
  if (!Claim.Build) {
    ++MemoryHits;
    Log->line(Label + ": memory cache hit, " + elapsed(Start));
    Result.Tracker = std::move(Claim.Tracker);
    Result.Origin = KernelOrigin::MemoryCache;
    return Result;
  }

  // From here on the entry is this request's to settle: every path below
  // publishes or abandons it, or requests waiting on it would wait forever.
  if (Error Err = buildAndAdd(TSM, JD, RT, Options, Result)) {
    std::string Why = toString(std::move(Err));
    Kernels->abandon(Claim.Build, Why);
    return createStringError(inconvertibleErrorCode(), Why);
  }
  if (Error Err = Kernels->publish(Claim.Build, RT))
    return Err;
  const char *How = Result.Origin == KernelOrigin::DiskCache
                        ? ": disk cache hit, "
                    : Disk ? ": no cache hit, compiled, "
                           : ": no cache hit (disk cache off), compiled, ";
  Log->line(Label + How + elapsed(Start));
  Result.Tracker = std::move(RT);
  return Result;
}

Error Engine::buildAndAdd(orc::ThreadSafeModule &TSM, orc::JITDylib &JD,
                          orc::ResourceTrackerSP &RT, KernelOptions Options,
                          AddedModule &Result) {
  llvm::Expected<std::unique_ptr<MemoryBuffer>> Obj =
      TSM.withModuleDo([&](Module &M) {
        return buildObject(M, Result.Key, Options, Result.Origin);
      });
  if (!Obj)
    return Obj.takeError();
  if (!RT)
    RT = JD.createResourceTracker();
  return JIT->addObjectFile(RT, std::move(*Obj));
}

namespace {
/// An exclusive lock on <entry>.lock in the disk cache, held while one
/// process compiles the entry: processes that share a cache directory and
/// need one kernel at once (the ranks of an MPI job on one machine, or on
/// a shared file system) wait for the first, then load its object instead
/// of compiling it too. The file is removed before the lock is released;
/// a process that locked the removed file finds the entry written and
/// compiles nothing, so the rare race costs at most one extra compile.
/// Where the lock cannot be had (an unwritable directory), nothing waits.
class CompileLock {
public:
  explicit CompileLock(std::string Path) : Path(std::move(Path)) {
    Fd = ::open(this->Path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (Fd < 0)
      return;
    int Rc;
    do
      Rc = ::flock(Fd, LOCK_EX);
    while (Rc != 0 && errno == EINTR);
    if (Rc != 0) {
      ::close(Fd);
      Fd = -1;
    }
  }
  ~CompileLock() {
    if (Fd < 0)
      return;
    ::unlink(Path.c_str());
    ::close(Fd);
  }
  CompileLock(const CompileLock &) = delete;
  CompileLock &operator=(const CompileLock &) = delete;

private:
  std::string Path;
  int Fd = -1;
};
} // namespace

llvm::Expected<std::unique_ptr<MemoryBuffer>>
Engine::buildObject(Module &M, const std::string &Key, KernelOptions Options,
                    KernelOrigin &Origin) {
  // The module's name is its key: that is how DiskObjectCache, an
  // llvm::ObjectCache that sees only the module, finds its entry.
  M.setModuleIdentifier(Key);
  auto FromDisk = [&]() -> std::unique_ptr<MemoryBuffer> {
    std::unique_ptr<MemoryBuffer> Obj = Disk ? Disk->getObject(&M) : nullptr;
    if (Obj) {
      ++DiskHits;
      Origin = KernelOrigin::DiskCache;
    }
    return Obj;
  };
  if (std::unique_ptr<MemoryBuffer> Obj = FromDisk())
    return Obj;
  // Missed: wait for whoever compiles it now, and look again. The lock is
  // held until this compile has written its entry.
  std::optional<CompileLock> Lock;
  if (Disk && !Disk->writesOff()) {
    (void)sys::fs::create_directories(Disk->directory());
    Lock.emplace(Disk->entryPath(Key) + ".lock");
    if (std::unique_ptr<MemoryBuffer> Obj = FromDisk())
      return Obj;
  }
  if (Error Err = checkIntrinsics(M, Triple(TripleName)))
    return Err;
  llvm::Expected<std::unique_ptr<TargetMachine>> TM =
      createTargetMachine(Options);
  if (!TM)
    return TM.takeError();
  std::unique_ptr<MemoryBuffer> Code;
  if (Error Err = recoverFatalErrors(M.getContext(), kernelName(M), [&]() -> Error {
        if (Error Err = runPipeline(M, **TM, OptLevel, Options.FastMath,
                                    *VectorMath))
          return Err;
        llvm::Expected<std::unique_ptr<MemoryBuffer>> Obj = emitObject(M, **TM);
        if (!Obj)
          return Obj.takeError();
        Code = std::move(*Obj);
        return Error::success();
      }))
    return Err;
  llvm::Expected<std::unique_ptr<MemoryBuffer>> Obj = std::move(Code);
  ++Compiles;
  Origin = KernelOrigin::Compiled;
  if (Disk)
    Disk->notifyObjectCompiled(&M, (*Obj)->getMemBufferRef());
  return Obj;
}

llvm::Expected<std::unique_ptr<TargetMachine>>
Engine::createTargetMachine(KernelOptions Options) const {
  orc::JITTargetMachineBuilder Builder = *TargetBuilder;
  if (Options.FastMath) {
    TargetOptions &TO = Builder.getOptions();
    TO.UnsafeFPMath = TO.NoInfsFPMath = TO.NoNaNsFPMath = true;
    TO.NoSignedZerosFPMath = TO.ApproxFuncFPMath = true;
    TO.AllowFPOpFusion = FPOpFusion::Fast;
  }
  return Builder.createTargetMachine();
}

bool Engine::hasFeature(StringRef Name) const {
  // The subtarget's description alone: no TargetMachine is needed.
  std::string Why;
  const Target *T = TargetRegistry::lookupTarget(TripleName, Why);
  if (!T)
    return false;
  std::unique_ptr<MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(TripleName, CPUName, Features));
  return STI && STI->checkFeatures(("+" + Name).str());
}

Error Engine::adoptTarget(Module &M) const {
  if (M.getTargetTriple().empty()) {
    M.setTargetTriple(TripleName);
  } else {
    Triple Want(TripleName), Have(M.getTargetTriple());
    if (Have.getArch() != Want.getArch() || Have.getOS() != Want.getOS())
      return createStringError(inconvertibleErrorCode(),
                               "module targets " + Have.str() +
                                   ", the engine " + TripleName);
  }
  if (M.getDataLayoutStr().empty())
    M.setDataLayout(Layout);
  else if (M.getDataLayout() != Layout)
    return createStringError(inconvertibleErrorCode(),
                             "module data layout '" + M.getDataLayoutStr() +
                                 "' differs from the target's '" +
                                 Layout.getStringRepresentation() + "'");
  return Error::success();
}

Error Engine::optimize(Module &M, KernelOptions Options) const {
  if (Error Err = adoptTarget(M))
    return Err;
  llvm::Expected<std::unique_ptr<TargetMachine>> TM =
      createTargetMachine(Options);
  if (!TM)
    return TM.takeError();
  return recoverFatalErrors(M.getContext(), kernelName(M), [&] {
    return runPipeline(M, **TM, OptLevel, Options.FastMath, *VectorMath);
  });
}

llvm::Expected<std::unique_ptr<MemoryBuffer>>
compileObject(Module &M, const ObjectTarget &T) {
  // Every target this LLVM has, once: an object may be for any of them.
  static const bool Ready = [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    return true;
  }();
  (void)Ready;
  enableFatalErrorRecovery();
  if (T.OptLevel > 3)
    return createStringError(inconvertibleErrorCode(),
                             "ObjectTarget::OptLevel is " +
                                 std::to_string(T.OptLevel) +
                                 ": expected 0 to 3");
  bool Host = T.Triple.empty();
  Triple TT(Host ? sys::getProcessTriple() : Triple::normalize(T.Triple));
  std::string Why;
  const Target *Tgt = TargetRegistry::lookupTarget(TT.str(), Why);
  if (!Tgt)
    return createStringError(inconvertibleErrorCode(),
                             "ObjectTarget::Triple '" + T.Triple +
                                 "': " + Why);
  std::string CPU = T.CPU;
  std::string Features = T.Features;
  if (CPU.empty() || CPU == "host") {
    if (Host || CPU == "host") {
      CPU = sys::getHostCPUName().str();
      SubtargetFeatures F;
      for (const auto &Feature : sys::getHostCPUFeatures())
        F.AddFeature(Feature.getKey(), Feature.getValue());
      if (!Features.empty())
        F.AddFeature(Features);
      Features = F.getString();
    } else {
      CPU = "generic";
    }
  } else if (Error E = checkCPU(TT, CPU, "ObjectTarget::CPU")) {
    return std::move(E);
  }
  TargetOptions Options;
  std::unique_ptr<TargetMachine> TM(Tgt->createTargetMachine(
      TT.str(), CPU, Features, Options, Reloc::PIC_, std::nullopt,
      codeGenLevel(T.OptLevel)));
  if (!TM)
    return createStringError(inconvertibleErrorCode(),
                             "no target machine for " + TT.str() + ", CPU " +
                                 CPU);
  M.setTargetTriple(TT.str());
  M.setDataLayout(TM->createDataLayout());
  detail::VectorMathLibrary VM = detail::findVectorMath(TT);
  std::unique_ptr<MemoryBuffer> Object;
  if (Error E = recoverFatalErrors(M.getContext(), kernelName(M), [&]() -> Error {
        if (Error E = runPipeline(M, *TM, T.OptLevel, /*FastMath=*/false, VM))
          return E;
        auto O = emitObject(M, *TM);
        if (!O)
          return O.takeError();
        Object = std::move(*O);
        return Error::success();
      }))
    return std::move(E);
  return std::move(Object);
}

llvm::Expected<orc::ExecutorAddr> Engine::lookupAddress(StringRef Name) {
  return JIT->lookup(Name);
}

EngineCounters Engine::counters() const {
  EngineCounters C;
  C.Compiles = Compiles.load();
  C.MemoryHits = MemoryHits.load();
  C.DiskHits = DiskHits.load();
  C.DiskRejects = Disk ? Disk->rejects() : 0;
  C.DiskEvictions = Disk ? Disk->evictions() : 0;
  return C;
}

orc::JITDylib &Engine::mainJITDylib() { return JIT->getMainJITDylib(); }

std::string Engine::diskCacheDir() const {
  return Disk ? Disk->directory() : std::string();
}

struct KernelFiles::Impl {
  std::string Triple, CPU;
  std::unique_ptr<detail::VerboseLog> Log;
  std::unique_ptr<detail::DiskObjectCache> Disk;
};

llvm::Expected<std::unique_ptr<KernelFiles>>
KernelFiles::open(const EngineOptions &Options, StringRef Triple,
                  StringRef CPU, StringRef Extension) {
  // The engine's own reading of the options, so that both caches agree.
  llvm::Expected<Settings> S = resolveSettings(Options);
  if (!S)
    return S.takeError();
  if (S->CacheRoot.empty())
    return nullptr;
  auto I = std::make_unique<Impl>();
  I->Triple = Triple.str();
  I->CPU = CPU.str();
  I->Log = std::make_unique<detail::VerboseLog>(S->Verbose, Options.Log);
  I->Disk = std::make_unique<detail::DiskObjectCache>(
      detail::cacheDirectory(S->CacheRoot, LLVM_VERSION_STRING, Triple, CPU),
      *I->Log, ("." + Extension).str(), S->Limits);
  return std::unique_ptr<KernelFiles>(new KernelFiles(std::move(I)));
}

KernelFiles::KernelFiles(std::unique_ptr<Impl> I) : P(std::move(I)) {}
KernelFiles::~KernelFiles() = default;

std::string KernelFiles::key(Module &M, StringRef Features, unsigned OptLevel,
                             bool FastMath) const {
  detail::CodegenIdentity Id{P->Triple, P->CPU, Features.str(), OptLevel,
                             FastMath};
  return detail::toHex(detail::computeKernelKey(M, Id));
}

std::optional<std::string> KernelFiles::load(StringRef Key) {
  std::optional<detail::KernelKey> K = detail::keyFromHex(Key);
  if (!K)
    return std::nullopt;
  std::unique_ptr<MemoryBuffer> Bytes = P->Disk->load(*K);
  if (!Bytes)
    return std::nullopt;
  return Bytes->getBuffer().str();
}

void KernelFiles::store(StringRef Key, StringRef Bytes) {
  if (std::optional<detail::KernelKey> K = detail::keyFromHex(Key))
    P->Disk->save(*K, Bytes);
}

std::string KernelFiles::path(StringRef Key) const {
  return P->Disk->entryPath(Key);
}

const std::string &KernelFiles::directory() const {
  return P->Disk->directory();
}

uint64_t KernelFiles::rejects() const { return P->Disk->rejects(); }

} // namespace llq::rt
