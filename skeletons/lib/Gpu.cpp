//===- Gpu.cpp - The GPU backend: PTX through NVPTX, run by the driver ----===//
//
// The skeletons' modules are the same for every backend: each phase is a
// function void(i64 lo, i64 hi, ptr args) over a piece of its index space.
// The GPU backend adds, per phase, a `ptx_kernel` written in the dialect
// that walks the pieces grid-stride, one piece per thread at a time, and
// takes the argument block by value. Calls the NVPTX target cannot lower
// (llvm.exp, expf, ...) go to libdevice's __nv_* functions, linked in when
// the module is optimised; any other call it cannot lower is an error here,
// never a crash in code generation. Arrays live in managed memory, so the
// driver moves pages to the side that touches them.
//
// The pieces, in the order a kernel meets them:
//   - GpuBackend::lower: retargets the module, adds the kernels
//     (KernelTemplate), redirects calls (prepareCalls), links libdevice and
//     optimises;
//   - GpuBackend::ptx: the NVPTX target's assembly printer; cachedPTX (the
//     backend's targetCode) puts the disk cache (rt::KernelFiles, <key>.ptx
//     beside the engine's objects) in front of both;
//   - GpuBackend::compile / launch: the driver loads the PTX and runs each
//     phase on a 1-D grid;
//   - GpuBackend::allocate / scratch / resident: managed memory.
//
//===----------------------------------------------------------------------===//

#include "Backends.h"
#include "llquote/runtime/KernelFiles.h"
#include "llquote/runtime/Cuda.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <mutex>

using namespace llq;
using namespace llq::detail;

namespace {

constexpr const char *PtxTriple = "nvptx64-nvidia-cuda";
/// The newest architecture LLVM 19's NVPTX target knows; newer devices run
/// its PTX through the driver's compiler.
constexpr const char *NewestArch = "sm_90";
constexpr unsigned BlockThreads = 256;

/// One kernel per phase: thread t of T runs pieces t, t + T, ... of
/// [begin, end), each `grain` long but the last.
const Template KernelTemplate = LLQ_DEFINITIONS(R"(
define ptx_kernel void $gid:kernel(i64 %begin, i64 %end, i64 %grain,
                                   ptr byval([$const:slots x i64]) align 8 %args) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %t = zext i32 %tid to i64
  %nt = zext i32 %ntid to i64
  %c = zext i32 %ctaid to i64
  %nc = zext i32 %nctaid to i64
  %first = mul i64 %c, %nt
  %thread = add i64 %first, %t
  %threads = mul i64 %nc, %nt
  %skip = mul i64 %thread, %grain
  %lo = add i64 %begin, %skip
  %step = mul i64 %threads, %grain
  %more = icmp slt i64 %lo, %end
  while %more {
    %room = sub i64 %end, %lo
    %short = icmp slt i64 %room, %grain
    %len = select i1 %short, i64 %room, i64 %grain
    %hi = add i64 %lo, %len
    call void $gid:phase(i64 %lo, i64 %hi, ptr %args)
    %left = sub i64 %end, %lo
    %more = icmp sgt i64 %left, %step
    %lo = add i64 %lo, %step
  }
  ret void
}
)");

const Template SregDeclarations = LLQ_DEFINITIONS(R"(
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
)");

/// Generic intrinsics that the NVPTX target lowers itself.
bool lowersItself(llvm::StringRef Base) {
  static const char *const Names[] = {
      "abs",         "assume",       "bitreverse", "bswap",    "ceil",
      "copysign",    "ctlz",         "ctpop",      "cttz",     "expect",
      "fabs",        "floor",        "fma",        "fmuladd",  "fshl",
      "fshr",        "lifetime",     "maximum",    "maxnum",   "memcpy",
      "memmove",     "memset",       "minimum",    "minnum",   "nearbyint",
      "rint",        "round",        "roundeven",  "sadd",     "smax",
      "smin",        "smul",         "sqrt",       "ssub",     "trunc",
      "uadd",        "umax",         "umin",       "umul",     "usub",
      "vector",      "experimental", "is",         "canonicalize",
      "threadlocal", "stacksave",    "stackrestore", "invariant",
      "var",         "annotation",   "ptr",        "launder",  "strip",
      "noalias",     "sideeffect",   "donothing",  "dbg"};
  for (const char *N : Names)
    if (Base == N)
      return true;
  return false;
}

/// Intrinsics that libdevice implements: llvm.NAME.f32 -> __nv_NAMEf.
bool inLibdevice(llvm::StringRef Base) {
  static const char *const Names[] = {"exp",  "exp2", "exp10", "log", "log2",
                                      "log10", "sin", "cos",   "tan", "pow",
                                      "powi"};
  for (const char *N : Names)
    if (Base == N)
      return true;
  return false;
}

/// Where libdevice is: LLQ_LIBDEVICE, else under CUDA_HOME / CUDA_PATH,
/// else under /usr/local/cuda.
std::string libdevicePath() {
  if (const char *P = std::getenv("LLQ_LIBDEVICE"); P && *P)
    return P;
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *P = std::getenv(Var); P && *P)
      return std::string(P) + "/nvvm/libdevice/libdevice.10.bc";
  return "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
}

/// The PTX ISA version an architecture needs, as the "+ptxNN" feature.
std::string ptxFeature(llvm::StringRef Arch) {
  unsigned SM = 0;
  llvm::StringRef Digits = Arch.drop_front(3).take_while(
      [](char C) { return C >= '0' && C <= '9'; });
  Digits.getAsInteger(10, SM);
  unsigned Ptx = SM >= 90 ? 80 : SM >= 89 ? 78 : SM >= 87 ? 74 : SM >= 86 ? 71
                 : SM >= 80 ? 70 : SM >= 75 ? 63 : 60;
  return fmt::format("+ptx{}", Ptx);
}

class GpuBackend final : public Backend {
public:
  static llvm::Expected<std::unique_ptr<GpuBackend>>
  create(const RuntimeOptions &O);
  ~GpuBackend() override = default;

  BackendKind kind() const override { return BackendKind::GPU; }
  unsigned parallelism() const override { return Threads; }
  bool atomics() const override { return true; }
  int64_t grain(int64_t) const override { return 1; }
  bool piecesInOrder() const override { return false; }
  bool tiledWalks() const override { return false; }
  llvm::Error compile(std::unique_ptr<llvm::Module> M,
                      std::unique_ptr<llvm::LLVMContext> Ctx,
                      const KernelGen &G, Kernel &K,
                      std::string &How) override;
  rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                    int64_t End, void *Args, int64_t Grain) override;
  rt::Expected<std::shared_ptr<rt::Array>>
  allocate(const ElemType &T, const Shape &Sh) override;
  rt::Expected<std::shared_ptr<void>> scratch(size_t Bytes) override;
  rt::Expected<std::shared_ptr<rt::Array>>
  resident(const std::shared_ptr<rt::Array> &A) override;

  llvm::Error lower(llvm::Module &M, const KernelGen &G,
                    bool Optimize) override;
  /// The PTX of M, from the disk cache or made now (cachedPTX).
  llvm::Expected<std::string> targetCode(llvm::Module &M,
                                         const KernelGen &G) override {
    bool FromDisk = false;
    return cachedPTX(M, G, FromDisk);
  }
  const char *targetCodeExtension() const override { return "ptx"; }
  llvm::Expected<std::string> ptx(llvm::Module &M);
  /// The PTX of the generated module \p M: from the disk cache, or lowered
  /// and compiled and then stored there. \p FromDisk says which.
  llvm::Expected<std::string> cachedPTX(llvm::Module &M, const KernelGen &G,
                                        bool &FromDisk);

private:
  GpuBackend() = default;
  /// "cannot run: ..." when there is no driver.
  rt::Status noDevice() const;
  llvm::Error prepareCalls(llvm::Module &M);
  /// Atomic loads and stores narrower than 32 bits, which LLVM 19's NVPTX
  /// target cannot select, become atomicrmw, which it widens.
  static void widenAtomics(llvm::Module &M);
  llvm::Error linkLibdevice(llvm::Module &M);

  rt::cuda::Driver *D = nullptr;
  std::string Arch;
  std::unique_ptr<llvm::TargetMachine> TM;
  unsigned Threads = 1;
  /// libdevice's bitcode, read on first need.
  std::unique_ptr<llvm::MemoryBuffer> Libdevice;
  /// PTX on disk, beside the engine's objects; null without a disk cache.
  std::unique_ptr<rt::KernelFiles> Files;
  /// What besides the module decides the PTX (ptxIdentity), for its key.
  std::string PtxIdentity;
  std::mutex CompileLock;
};

/// What, besides the module, decides the PTX: the architecture's PTX
/// version, and the libdevice that math functions come from (its path,
/// size and time: a new CUDA installation compiles anew).
std::string ptxIdentity(const std::string &Arch) {
  std::string Id = ptxFeature(Arch);
  llvm::sys::fs::file_status St;
  std::string Lib = libdevicePath();
  if (!llvm::sys::fs::status(Lib, St))
    Id += fmt::format(";libdevice={};{};{}", Lib, St.getSize(),
                      St.getLastModificationTime().time_since_epoch().count());
  return Id;
}

llvm::Expected<std::unique_ptr<GpuBackend>>
GpuBackend::create(const RuntimeOptions &O) {
  std::unique_ptr<GpuBackend> B(new GpuBackend());
  if (!O.CompileOnly) {
    auto Drv = rt::cuda::Driver::get();
    if (!Drv)
      return failure("the GPU backend is not available: " + Drv.message());
    B->D = *Drv;
    const rt::cuda::DeviceInfo &I = B->D->device();
    B->Threads = std::max(1u, I.Multiprocessors * I.ThreadsPerMultiprocessor);
  } else {
    // An H100's 132 SMs of 2048 threads: what chunked phases plan for.
    B->Threads = 132 * 2048;
  }

  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  std::string Error;
  const llvm::Target *T =
      llvm::TargetRegistry::lookupTarget(PtxTriple, Error);
  if (!T)
    return failure("the GPU backend is not available: LLVM has no NVPTX "
                   "target: " + Error);

  std::string Want;
  if (O.GpuArch)
    Want = *O.GpuArch;
  else if (const char *E = std::getenv("LLQ_GPU_ARCH"); E && *E)
    Want = E;
  bool Explicit = !Want.empty();
  if (!Explicit)
    Want = B->D ? B->D->device().arch() : NewestArch;
  std::unique_ptr<llvm::MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(PtxTriple, "", ""));
  auto Probe = [&](const std::string &A) {
    if (!STI || !STI->isCPUStringValid(A))
      return std::unique_ptr<llvm::TargetMachine>();
    std::unique_ptr<llvm::TargetMachine> TM(T->createTargetMachine(
        PtxTriple, A, ptxFeature(A), llvm::TargetOptions(), std::nullopt,
        std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    return TM;
  };
  B->TM = Probe(Want);
  if (!B->TM && !Explicit && Want != NewestArch) {
    // A device newer than LLVM 19 knows: the driver compiles sm_90 PTX for it.
    Want = NewestArch;
    B->TM = Probe(Want);
  }
  if (!B->TM)
    return failure(fmt::format(
        "the GPU backend cannot compile for '{}': LLVM's NVPTX target does "
        "not know it (RuntimeOptions::GpuArch or LLQ_GPU_ARCH names an "
        "architecture such as sm_90)",
        Want));
  B->Arch = Want;
  rt::EngineOptions EO;
  EO.Verbose = O.Verbose;
  EO.DiskCache = O.DiskCache;
  EO.CacheDir = O.CacheDir;
  EO.CacheMaxSize = O.CacheMaxSize;
  auto Files = rt::KernelFiles::open(EO, PtxTriple, Want, "ptx");
  if (!Files)
    return Files.takeError();
  B->Files = std::move(*Files);
  if (B->Files)
    B->PtxIdentity = ptxIdentity(Want);
  return B;
}

rt::Status GpuBackend::noDevice() const {
  return rt::Status::error(
      "this GPU Runtime compiles only (RuntimeOptions::CompileOnly) and "
      "cannot run kernels");
}

llvm::Error GpuBackend::prepareCalls(llvm::Module &M) {
  std::vector<std::pair<llvm::Function *, std::string>> Redirect;
  for (llvm::Function &F : M) {
    if (!F.isDeclaration() || F.use_empty())
      continue;
    llvm::StringRef Name = F.getName();
    if (F.isIntrinsic()) {
      if (Name.starts_with("llvm.nvvm."))
        continue;
      llvm::StringRef Base = Name.drop_front(5).split('.').first;
      if (lowersItself(Base))
        continue;
      llvm::Type *Ty = F.getReturnType();
      if (inLibdevice(Base) && (Ty->isFloatTy() || Ty->isDoubleTy())) {
        Redirect.emplace_back(
            &F, "__nv_" + Base.str() + (Ty->isFloatTy() ? "f" : ""));
        continue;
      }
      return failure(fmt::format(
          "the GPU backend cannot run @{}: the NVPTX target does not lower "
          "it{}",
          Name.str(),
          inLibdevice(Base) ? " in this type (libdevice has it for float and "
                              "double scalars)"
                            : ""));
    }
    if (Name.starts_with("__nv_") || Name == "vprintf")
      continue;
    // A C math function (expf, sin, ...): libdevice's __nv_ twin, which
    // linkLibdevice checks exists.
    Redirect.emplace_back(&F, "__nv_" + Name.str());
  }
  for (auto &[F, To] : Redirect) {
    llvm::FunctionCallee Callee = M.getOrInsertFunction(To, F->getFunctionType());
    F->replaceAllUsesWith(Callee.getCallee());
    F->eraseFromParent();
  }
  return llvm::Error::success();
}

void GpuBackend::widenAtomics(llvm::Module &M) {
  std::vector<llvm::Instruction *> Narrow;
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : llvm::instructions(F)) {
      llvm::Type *Ty = nullptr;
      if (auto *S = llvm::dyn_cast<llvm::StoreInst>(&I); S && S->isAtomic())
        Ty = S->getValueOperand()->getType();
      else if (auto *L = llvm::dyn_cast<llvm::LoadInst>(&I); L && L->isAtomic())
        Ty = L->getType();
      if (Ty && Ty->isIntegerTy() && Ty->getIntegerBitWidth() < 32)
        Narrow.push_back(&I);
    }
  for (llvm::Instruction *I : Narrow) {
    llvm::IRBuilder<> B(I);
    if (auto *S = llvm::dyn_cast<llvm::StoreInst>(I)) {
      B.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, S->getPointerOperand(),
                        S->getValueOperand(), S->getAlign(), S->getOrdering(),
                        S->getSyncScopeID());
    } else {
      auto *L = llvm::cast<llvm::LoadInst>(I);
      auto *Zero = llvm::ConstantInt::get(L->getType(), 0);
      auto *V = B.CreateAtomicRMW(llvm::AtomicRMWInst::Or,
                                  L->getPointerOperand(), Zero, L->getAlign(),
                                  L->getOrdering(), L->getSyncScopeID());
      L->replaceAllUsesWith(V);
    }
    I->eraseFromParent();
  }
}

llvm::Error GpuBackend::linkLibdevice(llvm::Module &M) {
  bool Needed = false;
  for (llvm::Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with("__nv_"))
      Needed = true;
  if (!Needed)
    return llvm::Error::success();
  std::string Path = libdevicePath();
  if (!Libdevice) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf)
      return failure(fmt::format(
          "the kernel calls a math function that the GPU takes from "
          "libdevice, which cannot be read at {}: {} (set LLQ_LIBDEVICE to "
          "libdevice.10.bc)",
          Path, Buf.getError().message()));
    Libdevice = std::move(*Buf);
  }
  auto Lib = llvm::parseBitcodeFile(Libdevice->getMemBufferRef(),
                                    M.getContext());
  if (!Lib)
    return llvm::joinErrors(failure("libdevice at " + Path + " is not valid "
                                     "bitcode:"),
                            Lib.takeError());
  for (llvm::Function &F : M) {
    if (!F.isDeclaration() || !F.getName().starts_with("__nv_"))
      continue;
    llvm::Function *Def = (*Lib)->getFunction(F.getName());
    if (!Def || Def->isDeclaration())
      return failure(fmt::format(
          "the GPU backend cannot run @{}: it is not an intrinsic the NVPTX "
          "target lowers, and libdevice has no {}",
          F.getName().drop_front(5).str(), F.getName().str()));
  }
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(M.getDataLayout());
  if (llvm::Linker::linkModules(M, std::move(*Lib),
                                llvm::Linker::LinkOnlyNeeded))
    return failure("linking libdevice failed");
  return llvm::Error::success();
}

llvm::Error GpuBackend::lower(llvm::Module &M, const KernelGen &G,
                              bool Optimize) {
  M.setTargetTriple(PtxTriple);
  M.setDataLayout(TM->createDataLayout());
  if (!M.getFunction("llvm.nvvm.read.ptx.sreg.tid.x"))
    if (auto D = SregDeclarations.instantiateInto(M); !D)
      return D.takeError();
  for (const std::string &P : G.phases()) {
    std::string Entry = G.name() + "." + P;
    llvm::Function *F = M.getFunction(Entry);
    if (!F)
      return failure("the GPU backend found no phase " + Entry);
    F->setLinkage(llvm::GlobalValue::InternalLinkage);
    F->addFnAttr(llvm::Attribute::AlwaysInline);
    auto K = KernelTemplate.instantiateInto(
        M, {{"kernel", G.name() + "_" + P},
            {"phase", Entry},
            {"slots", uint64_t(std::max<size_t>(G.slots().size(), 1))}});
    if (!K)
      return K.takeError();
  }
  if (llvm::Error E = prepareCalls(M))
    return E;
  widenAtomics(M);
  if (!Optimize)
    return llvm::Error::success();
  // libdevice is read once, and the TargetMachine is shared.
  std::lock_guard<std::mutex> Lock(CompileLock);
  if (llvm::Error E = linkLibdevice(M))
    return E;
  // Only the kernels are entry points; everything else may be inlined away.
  for (llvm::Function &F : M)
    if (!F.isDeclaration() &&
        F.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      F.setLinkage(llvm::GlobalValue::InternalLinkage);
  M.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));

  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB(TM.get());
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  PB.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(M, MAM);
  return llvm::Error::success();
}

llvm::Expected<std::string> GpuBackend::ptx(llvm::Module &M) {
  std::lock_guard<std::mutex> Lock(CompileLock);
  llvm::SmallString<0> Text;
  llvm::raw_svector_ostream OS(Text);
  widenAtomics(M);
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr,
                              llvm::CodeGenFileType::AssemblyFile))
    return failure("the NVPTX target cannot emit assembly");
  // A construct the target cannot select is a fatal error inside LLVM; run
  // code generation where that returns here with LLVM's message instead.
  static thread_local std::string Fatal;
  Fatal.clear();
  llvm::ScopedFatalErrorHandler Handler(
      [](void *, const char *Reason, bool) { Fatal = Reason; });
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext CRC;
  bool Ok = CRC.RunSafely([&] { PM.run(M); });
  llvm::CrashRecoveryContext::Disable();
  if (!Ok)
    return failure("the NVPTX target could not compile the kernel" +
                   (Fatal.empty() ? std::string() : ": " + Fatal));
  return std::string(Text.str());
}

llvm::Expected<std::string> GpuBackend::cachedPTX(llvm::Module &M,
                                                  const KernelGen &G,
                                                  bool &FromDisk) {
  FromDisk = false;
  std::string Key;
  if (Files) {
    // Fast math and every other choice of the skeleton are in the module.
    Key = Files->key(M, PtxIdentity, /*OptLevel=*/3, /*FastMath=*/false);
    if (std::optional<std::string> Hit = Files->load(Key)) {
      FromDisk = true;
      return std::move(*Hit);
    }
  }
  if (llvm::Error E = lower(M, G, /*Optimize=*/true))
    return std::move(E);
  auto Text = ptx(M);
  if (Text && Files)
    Files->store(Key, *Text);
  return Text;
}

llvm::Error GpuBackend::compile(std::unique_ptr<llvm::Module> M,
                                std::unique_ptr<llvm::LLVMContext> Ctx,
                                const KernelGen &G, Kernel &K,
                                std::string &How) {
  // The module dies before its context, whichever way this returns.
  std::unique_ptr<llvm::LLVMContext> OwnCtx = std::move(Ctx);
  std::unique_ptr<llvm::Module> OwnM = std::move(M);
  bool FromDisk = false;
  auto Text = cachedPTX(*OwnM, G, FromDisk);
  if (!Text)
    return Text.takeError();
  if (!D)
    return failure(noDevice().message());
  auto Mod = D->loadPTX(*Text);
  if (!Mod)
    return failure(K.Name + ": " + Mod.message());
  rt::cuda::Driver *Drv = D;
  K.Owner = std::shared_ptr<void>(*Mod, [Drv](void *P) {
    (void)Drv->unload(P);
  });
  for (const std::string &P : G.phases()) {
    auto F = D->function(*Mod, G.name() + "_" + P);
    if (!F)
      return failure(F.message());
    K.Device.push_back(*F);
  }
  K.FromDisk = FromDisk;
  How = FromDisk ? "PTX for " + Arch + " from the disk cache, loaded by the driver"
                 : "compiled to PTX for " + Arch + " and loaded by the driver";
  return llvm::Error::success();
}

rt::Status GpuBackend::launch(const Kernel &K, unsigned Phase, int64_t Begin,
                              int64_t End, void *Args, int64_t Grain) {
  if (!D)
    return noDevice();
  if (End <= Begin)
    return rt::Status();
  Grain = std::max<int64_t>(Grain, 1);
  int64_t Pieces = (End - Begin - 1) / Grain + 1;
  int64_t MaxBlocks = std::max<int64_t>(1, int64_t(Threads) / BlockThreads);
  int64_t Blocks =
      std::min<int64_t>((Pieces + BlockThreads - 1) / BlockThreads, MaxBlocks);
  void *Params[] = {&Begin, &End, &Grain, Args};
  return D->launch(K.Device.at(Phase), unsigned(Blocks), BlockThreads, Params);
}

rt::Expected<std::shared_ptr<rt::Array>>
GpuBackend::allocate(const ElemType &T, const Shape &Sh) {
  if (!D)
    return noDevice();
  std::vector<void *> Bufs;
  auto Free = [Drv = D](std::vector<void *> &Bs) {
    for (void *P : Bs)
      Drv->free(P);
  };
  for (ScalarKind Kind : T.fields()) {
    rt::Expected<uint64_t> Size = rt::paddedBufferBytes(Sh, Kind);
    if (!Size) {
      Free(Bufs);
      return Size.status();
    }
    uint64_t Padded = *Size;
    uint64_t Bytes = uint64_t(Sh.size()) * rt::byteSize(Kind);
    auto P = D->allocateManaged(size_t(Padded));
    if (!P) {
      Free(Bufs);
      return P.status();
    }
    Bufs.push_back(*P);
    if (rt::Status S = D->memset(static_cast<char *>(*P) + Bytes, 0,
                                 size_t(Padded - Bytes));
        !S.ok()) {
      Free(Bufs);
      return S;
    }
  }
  auto A = rt::Array::wrap(T, Sh, Bufs);
  if (!A) {
    Free(Bufs);
    return A.status();
  }
  return std::shared_ptr<rt::Array>(
      new rt::Array(std::move(*A)), [Drv = D, Bufs](rt::Array *Arr) {
        delete Arr;
        for (void *P : Bufs)
          Drv->free(P);
      });
}

rt::Expected<std::shared_ptr<void>> GpuBackend::scratch(size_t Bytes) {
  if (!D)
    return noDevice();
  size_t Rounded = scratchBytes(Bytes);
  auto P = D->allocateManaged(Rounded);
  if (!P)
    return P.status();
  if (rt::Status S = D->memset(*P, 0, Rounded); !S.ok()) {
    D->free(*P);
    return S;
  }
  rt::cuda::Driver *Drv = D;
  return std::shared_ptr<void>(*P, [Drv](void *Q) { Drv->free(Q); });
}

rt::Expected<std::shared_ptr<rt::Array>>
GpuBackend::resident(const std::shared_ptr<rt::Array> &A) {
  if (!D)
    return noDevice();
  if (A->numFields() == 0 || A->size() == 0 || D->isManaged(A->data(0)))
    return A;
  auto Copy = allocate(A->type(), A->shape());
  if (!Copy)
    return Copy;
  for (size_t F = 0; F < A->numFields(); ++F)
    std::memcpy((*Copy)->data(F), A->data(F),
                size_t(A->size()) * rt::byteSize(A->type().field(F)));
  return Copy;
}

} // namespace

llvm::Expected<std::unique_ptr<Backend>>
llq::detail::makeGpuBackend(const RuntimeOptions &O) {
  auto B = GpuBackend::create(O);
  if (!B)
    return B.takeError();
  return std::unique_ptr<Backend>(std::move(*B));
}

llvm::Error llq::gpuAvailable() {
  auto D = rt::cuda::Driver::get();
  if (!D)
    return failure(D.message());
  return llvm::Error::success();
}
