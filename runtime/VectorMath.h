//===- VectorMath.h - Vector variants of math calls that allow approximation -===//
//
// findVectorMath: requires the engine's target triple; produces the vector
// math library kernels may call on that target (glibc's libmvec on x86-64
// Linux), with the address of each vector function it exports, or an empty
// library where there is none or it cannot be loaded.
//
// annotateVectorMath: requires a module to be compiled for the subtarget
// \p STI and the library found for its triple; produces the same module in
// which every call carrying the `afn` flag to a math function the library
// covers (`llvm.sin.f32`, `sinf`, `llvm.pow.f64`, `atan2`, ...; exp and
// log are inline code by then, ApproxMath.h) lists its
// vector variants in the "vector-function-abi-variant" attribute, each
// declared in the module and kept alive through llvm.compiler.used until
// the vectorizers have run. The loop and SLP vectorizers then call, say,
// `_ZGVdN8v_sinf` for eight lanes at once instead of scalarising
// `llvm.sin.v8f32` into eight `sinf` calls. Per vector width, the widest
// instruction set the subtarget has (AVX-512, AVX2, AVX, SSE) is offered.
//
// Breaks: nothing for calls without `afn`: their results stay those of the
// scalar function whatever the vector width, since libmvec's functions may
// differ from libm's in the last bits (glibc documents up to 4 ulp). A call
// that already names variants, or whose callee the module defines, is left
// as it is.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_VECTORMATH_H
#define LLQUOTE_RUNTIME_VECTORMATH_H

#include "llvm/ADT/StringMap.h"
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class Function;
class MCSubtargetInfo;
class Module;
class Triple;
class Type;
} // namespace llvm

namespace llq::rt::detail {

/// A libm function libmvec has vector variants of, by its double name.
struct MathFunction {
  const char *Name;
  unsigned Arity;
};

/// The math function \p Callee is, called with \p T (float or double) for
/// result and every argument: an intrinsic (`llvm.exp.f32`) or libm's own
/// name (`expf`, `exp`), one of those libmvec covers; none otherwise.
std::optional<MathFunction> mathFunctionOf(const llvm::Function &Callee,
                                           llvm::Type *T);

struct VectorMathLibrary {
  /// What the kernel key records ("libmvec"); empty when there is none.
  std::string Name;
  /// Each vector function the library exports, by its vector ABI name
  /// (`_ZGVdN8v_expf`), with its address in this process.
  llvm::StringMap<uint64_t> Functions;
  bool empty() const { return Functions.empty(); }
};

VectorMathLibrary findVectorMath(const llvm::Triple &T);

void annotateVectorMath(llvm::Module &M, const llvm::MCSubtargetInfo &STI,
                        const VectorMathLibrary &Lib);

} // namespace llq::rt::detail

#endif // LLQUOTE_RUNTIME_VECTORMATH_H
