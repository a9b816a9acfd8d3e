//===- ApproxMath.h - Inline exp and log where approximation is allowed ---===//
//
// expandApproxMath: requires a verified module, before the optimisation
// pipeline; produces the same module in which every call carrying the `afn`
// flag to exp or log of a float or double (`llvm.exp.f32`, `expf`,
// `llvm.log.f64`, `log`) calls an internal, always-inlined function of the
// module instead (`llq.math.exp.f32`, ...), written in the dialect: a range
// reduction, a polynomial and a scale by a power of two, made of adds,
// multiplies, selects and bit casts only. After inlining, the loop
// vectorizer widens it to the subtarget's vector width like any other
// arithmetic: no call, no spill of the vector registers around one, on
// every target, with or without a vector math library.
//
// Accuracy: within 2 ulp of the correctly rounded result (float: every
// input checked, 1.22 ulp at worst; double: samples of every exponent;
// runtime/tests/EngineTests.cpp), with IEEE special cases (exp: NaN, +-inf,
// overflow to +inf, subnormal results; log: 0 gives -inf, a negative input
// NaN, +inf +inf, subnormal inputs exact in their exponent).
//
// Breaks: nothing for calls without `afn`: they keep libm's results.
// A module that already has a global of one of the reserved names keeps
// its calls of that function as they are.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_APPROXMATH_H
#define LLQUOTE_RUNTIME_APPROXMATH_H

#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

namespace llq::rt::detail {

/// What the kernel key records, so that a change of the functions' code
/// does not reuse objects compiled with the previous one.
constexpr unsigned ApproxMathRevision = 1;

/// Fails only if the functions' template cannot be instantiated into \p M
/// (a defect of the engine, not of the module), naming why.
llvm::Error expandApproxMath(llvm::Module &M);

} // namespace llq::rt::detail

#endif // LLQUOTE_RUNTIME_APPROXMATH_H
