//===- VectorMath.cpp - Vector variants of math calls that allow approximation ===//
//
// The names follow the x86-64 vector function ABI that libmvec implements:
// `_ZGV` <isa> `N` <lanes> `v` per argument `_` <libm name>, where the isa
// letter is b (SSE), c (AVX), d (AVX2) or e (AVX-512). The attribute that
// tells LLVM's vectorizers about a variant names the scalar callee:
// `_ZGV_LLVM_N8v_llvm.exp.f32(_ZGVdN8v_expf)`.
//
//===----------------------------------------------------------------------===//

#include "VectorMath.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include <optional>

using namespace llvm;

namespace llq::rt::detail {
namespace {

const MathFunction MathFunctions[] = {
    {"acos", 1},  {"acosh", 1}, {"asin", 1},  {"asinh", 1}, {"atan", 1},
    {"atanh", 1}, {"cbrt", 1},  {"cos", 1},   {"cosh", 1},  {"erf", 1},
    {"erfc", 1},  {"exp", 1},   {"exp10", 1}, {"exp2", 1},  {"expm1", 1},
    {"log", 1},   {"log10", 1}, {"log1p", 1}, {"log2", 1},  {"sin", 1},
    {"sinh", 1},  {"tan", 1},   {"tanh", 1},  {"atan2", 2}, {"hypot", 2},
    {"pow", 2},
};

/// An instruction set of the vector ABI, widest first.
struct VectorIsa {
  char Letter;
  unsigned Bits;
  const char *Feature;
};

const VectorIsa VectorIsas[] = {
    {'e', 512, "+avx512f"},
    {'d', 256, "+avx2"},
    {'c', 256, "+avx"},
    {'b', 128, "+sse2"},
};

std::string vectorName(const VectorIsa &Isa, unsigned Lanes,
                       const MathFunction &Fn, bool Float) {
  return std::string("_ZGV") + Isa.Letter + "N" + utostr(Lanes) +
         std::string(Fn.Arity, 'v') + "_" + Fn.Name + (Float ? "f" : "");
}

} // namespace

std::optional<MathFunction> mathFunctionOf(const Function &Callee, Type *T) {
  bool Float = T->isFloatTy();
  if (!Float && !T->isDoubleTy())
    return std::nullopt;
  StringRef Name = Callee.getName();
  if (Callee.isIntrinsic()) {
    if (!Name.consume_front("llvm.") ||
        !Name.consume_back(Float ? ".f32" : ".f64"))
      return std::nullopt;
  } else if (Float && !Name.consume_back("f")) {
    return std::nullopt;
  }
  for (const MathFunction &Fn : MathFunctions) {
    if (Name != Fn.Name)
      continue;
    FunctionType *FT = Callee.getFunctionType();
    if (FT->isVarArg() || FT->getNumParams() != Fn.Arity ||
        FT->getReturnType() != T)
      return std::nullopt;
    for (Type *P : FT->params())
      if (P != T)
        return std::nullopt;
    return Fn;
  }
  return std::nullopt;
}

VectorMathLibrary findVectorMath(const Triple &T) {
  VectorMathLibrary Lib;
  if (T.getArch() != Triple::x86_64 || !T.isOSLinux())
    return Lib;
  std::string Err;
  sys::DynamicLibrary Mvec =
      sys::DynamicLibrary::getPermanentLibrary("libmvec.so.1", &Err);
  if (!Mvec.isValid())
    return Lib;
  for (const MathFunction &Fn : MathFunctions)
    for (const VectorIsa &Isa : VectorIsas)
      for (bool Float : {true, false}) {
        unsigned Lanes = Isa.Bits / (Float ? 32 : 64);
        std::string Name = vectorName(Isa, Lanes, Fn, Float);
        if (void *Addr = Mvec.getAddressOfSymbol(Name.c_str()))
          Lib.Functions[Name] = reinterpret_cast<uintptr_t>(Addr);
      }
  if (!Lib.empty())
    Lib.Name = "libmvec";
  return Lib;
}

void annotateVectorMath(Module &M, const MCSubtargetInfo &STI,
                        const VectorMathLibrary &Lib) {
  if (Lib.empty())
    return;
  SmallVector<const VectorIsa *, 4> Isas;
  for (const VectorIsa &Isa : VectorIsas)
    if (STI.checkFeatures(Isa.Feature))
      Isas.push_back(&Isa);
  SmallVector<GlobalValue *, 8> Declared;
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      auto *CI = dyn_cast<CallInst>(&I);
      if (!CI || !isa<FPMathOperator>(CI) || !CI->hasApproxFunc() ||
          CI->hasFnAttr("vector-function-abi-variant"))
        continue;
      Function *Callee = CI->getCalledFunction();
      if (!Callee || !Callee->isDeclaration())
        continue;
      Type *T = CI->getType();
      std::optional<MathFunction> Fn = mathFunctionOf(*Callee, T);
      if (!Fn)
        continue;
      bool Float = T->isFloatTy();
      std::string Variants;
      SmallVector<unsigned, 4> Offered;
      for (const VectorIsa *Isa : Isas) {
        unsigned Lanes = Isa->Bits / (Float ? 32 : 64);
        if (is_contained(Offered, Lanes))
          continue;
        std::string Name = vectorName(*Isa, Lanes, *Fn, Float);
        if (!Lib.Functions.count(Name))
          continue;
        auto *VT = FixedVectorType::get(T, Lanes);
        auto *FT = FunctionType::get(VT, SmallVector<Type *, 2>(Fn->Arity, VT),
                                     /*isVarArg=*/false);
        auto *Decl = dyn_cast<Function>(
            M.getOrInsertFunction(Name, FT).getCallee());
        if (!Decl || !Decl->isDeclaration() || Decl->getFunctionType() != FT)
          continue; // The module has the name for something of its own.
        Declared.push_back(Decl);
        Offered.push_back(Lanes);
        if (!Variants.empty())
          Variants += ',';
        Variants += "_ZGV_LLVM_N" + utostr(Lanes) + std::string(Fn->Arity, 'v') +
                    "_" + Callee->getName().str() + "(" + Name + ")";
      }
      if (!Variants.empty())
        CI->addFnAttr(Attribute::get(M.getContext(),
                                     "vector-function-abi-variant", Variants));
    }
  if (!Declared.empty())
    appendToCompilerUsed(M, Declared);
}

} // namespace llq::rt::detail
