//===- ApproxMath.cpp - Inline exp and log where approximation is allowed -===//
//
// exp(x) = 2^n e^r with n = round(x / ln 2) and |r| <= ln(2)/2: r is x less
// n ln 2 in two steps (Cody and Waite: ln 2 split into a head with trailing
// zero bits, so that n times it is exact, and the rest); e^r is its Taylor
// polynomial, of degree 7 for float and 13 for double (the first term left
// out is below 1e-8 and 1e-17 of the result); 2^n is applied as two powers
// of two, 2^(n/2) and 2^(n - n/2), each a normal number, so that results
// just below the overflow threshold and subnormal results come out right.
// n comes from adding and subtracting 1.5 * 2^(mantissa bits): the rounded
// sum holds n in its low bits, with no call of rint (a library call on
// x86-64 without SSE4.1) and no fptosi (poison on NaN).
//
// log(x) = k ln 2 + log m with x = 2^k m, m in [sqrt(1/2), sqrt(2)):
// subtracting the bits of sqrt(1/2) from x's moves the exponent's boundary
// there, so that k and m are an integer shift and mask away; f = m - 1 is
// exact. A subnormal x is first scaled by 2^(mantissa bits). For float,
// log(1 + f) = f + f^2 R(f) with R a polynomial of degree 8 fitted to
// (log(1 + f) - f) / f^2 over f's interval (Chebyshev fit, error 3e-8 in R,
// below 2e-8 of the result), with no division: the kernels that call log
// often divide already, and a divider is one unit a core. For double,
// with s = f / (2 + f), |s| < 0.172,
// log m = 2 atanh s = 2s (1 + s^2/3 + s^4/5 + ... + s^20/21): a fit to
// double's precision would take a polynomial of degree 19.
//
// Measured against libm in double, over every float input: exp within
// 0.94 ulp and log within 0.94 with FMA, 1.22 and 0.97 with separate
// multiplies and adds. The tests check samples of both precisions, double
// against long double.
//
// The functions use the dialect's variables (a name assigned again is the
// next value of the same quantity), so that each reads as its formula does.
// Every step is an add, a multiply (llvm.fmuladd: fused where the target
// has FMA), a select or a bit cast, so the loop vectorizer widens the
// functions once they are inlined. The functions' instructions carry no
// fast-math flags, so no pass may reassociate the reductions away.
//
//===----------------------------------------------------------------------===//

#include "ApproxMath.h"
#include "VectorMath.h"
#include "llquote/Template.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace llq::rt::detail {
namespace {

const Template MathFunctions = LLQ_DEFINITIONS(R"(
declare float @llvm.fmuladd.f32(float, float, float)
declare double @llvm.fmuladd.f64(double, double, double)

define internal float @llq.math.exp.f32(float %x) alwaysinline {
entry:
  ; NaN is carried through as 0 and given back at the end; below -104 the
  ; result rounds to +0, above 89 to +inf.
  %a = float %x
  %nan = fcmp uno float %x, 0.0
  %a = select i1 %nan, float 0.0, float %a
  %under = fcmp olt float %a, -104.0
  %a = select i1 %under, float -104.0, float %a
  %over = fcmp ogt float %a, 89.0
  %a = select i1 %over, float 89.0, float %a
  ; n = round(a log2(e)), kept in the low bits of %big.
  %t = fmul float %a, 0x3FF7154760000000
  %big = fadd float %t, 12582912.0
  %nf = fsub float %big, 12582912.0
  %r = call float @llvm.fmuladd.f32(float %nf, float 0xBFE6300000000000, float %a)
  %r = call float @llvm.fmuladd.f32(float %nf, float 0x3F2BD01060000000, float %r)
  %p = call float @llvm.fmuladd.f32(float 0x3F2A01A020000000, float %r, float 0x3F56C16C20000000)
  %p = call float @llvm.fmuladd.f32(float %p, float %r, float 0x3F81111120000000)
  %p = call float @llvm.fmuladd.f32(float %p, float %r, float 0x3FA5555560000000)
  %p = call float @llvm.fmuladd.f32(float %p, float %r, float 0x3FC5555560000000)
  %p = call float @llvm.fmuladd.f32(float %p, float %r, float 0.5)
  %p = call float @llvm.fmuladd.f32(float %p, float %r, float 1.0)
  %p = call float @llvm.fmuladd.f32(float %p, float %r, float 1.0)
  %bits = bitcast float %big to i32
  %n = sub i32 %bits, 1262485504
  %n1 = ashr i32 %n, 1
  %n2 = sub i32 %n, %n1
  %e1 = add i32 %n1, 127
  %e1 = shl i32 %e1, 23
  %s1 = bitcast i32 %e1 to float
  %e2 = add i32 %n2, 127
  %e2 = shl i32 %e2, 23
  %s2 = bitcast i32 %e2 to float
  %y = fmul float %p, %s1
  %y = fmul float %y, %s2
  %y = select i1 %nan, float %x, float %y
  ret float %y
}

define internal float @llq.math.log.f32(float %x) alwaysinline {
entry:
  %tiny = fcmp olt float %x, 0x3810000000000000
  %scaled = fmul float %x, 8388608.0
  %a = float %x
  %a = select i1 %tiny, float %scaled, float %a
  %k0 = select i1 %tiny, i32 -23, i32 0
  ; a = 2^k m, m in [sqrt(1/2), sqrt(2)); 1060439283 is sqrt(1/2)'s bits.
  %ia = bitcast float %a to i32
  %d = sub i32 %ia, 1060439283
  %k = ashr i32 %d, 23
  %k = add i32 %k, %k0
  %mb = and i32 %d, 8388607
  %mb = add i32 %mb, 1060439283
  %m = bitcast i32 %mb to float
  ; log(1 + f) = f + f^2 R(f), R a fit of degree 8 (see the header).
  %f = fsub float %m, 1.0
  %r = call float @llvm.fmuladd.f32(float 0xBFB3A4FF60000000, float %f, float 0x3FC048F720000000)
  %r = call float @llvm.fmuladd.f32(float %r, float %f, float 0xBFC0CDA320000000)
  %r = call float @llvm.fmuladd.f32(float %r, float %f, float 0x3FC22EA5A0000000)
  %r = call float @llvm.fmuladd.f32(float %r, float %f, float 0xBFC5483820000000)
  %r = call float @llvm.fmuladd.f32(float %r, float %f, float 0x3FC99A0120000000)
  %r = call float @llvm.fmuladd.f32(float %r, float %f, float 0xBFD00020C0000000)
  %r = call float @llvm.fmuladd.f32(float %r, float %f, float 0x3FD5555540000000)
  %r = call float @llvm.fmuladd.f32(float %r, float %f, float 0xBFDFFFFFE0000000)
  %f2 = fmul float %f, %f
  %lm = call float @llvm.fmuladd.f32(float %f2, float %r, float %f)
  ; k ln 2 in two parts, the head's product exact.
  %kf = sitofp i32 %k to float
  %y = call float @llvm.fmuladd.f32(float %kf, float 0xBF2BD01060000000, float %lm)
  %y = call float @llvm.fmuladd.f32(float %kf, float 0x3FE6300000000000, float %y)
  %inf = fcmp oeq float %x, 0x7FF0000000000000
  %y = select i1 %inf, float %x, float %y
  %zero = fcmp oeq float %x, 0.0
  %y = select i1 %zero, float 0xFFF0000000000000, float %y
  %neg = fcmp olt float %x, 0.0
  %y = select i1 %neg, float 0x7FF8000000000000, float %y
  %nan = fcmp uno float %x, 0.0
  %y = select i1 %nan, float %x, float %y
  ret float %y
}

define internal double @llq.math.exp.f64(double %x) alwaysinline {
entry:
  %a = double %x
  %nan = fcmp uno double %x, 0.0
  %a = select i1 %nan, double 0.0, double %a
  %under = fcmp olt double %a, -746.0
  %a = select i1 %under, double -746.0, double %a
  %over = fcmp ogt double %a, 710.0
  %a = select i1 %over, double 710.0, double %a
  %t = fmul double %a, 0x3FF71547652B82FE
  %big = fadd double %t, 0x4338000000000000
  %nf = fsub double %big, 0x4338000000000000
  %r = call double @llvm.fmuladd.f64(double %nf, double 0xBFE62E42FEE00000, double %a)
  %r = call double @llvm.fmuladd.f64(double %nf, double 0xBDEA39EF35793C76, double %r)
  %p = call double @llvm.fmuladd.f64(double 0x3DE6124613A86D09, double %r, double 0x3E21EED8EFF8D898)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3E5AE64567F544E4)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3E927E4FB7789F5C)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3EC71DE3A556C734)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3EFA01A01A01A01A)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3F2A01A01A01A01A)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3F56C16C16C16C17)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3F81111111111111)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3FA5555555555555)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0x3FC5555555555555)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 0.5)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 1.0)
  %p = call double @llvm.fmuladd.f64(double %p, double %r, double 1.0)
  %bits = bitcast double %big to i64
  %n = sub i64 %bits, 4843621399236968448
  %n1 = ashr i64 %n, 1
  %n2 = sub i64 %n, %n1
  %e1 = add i64 %n1, 1023
  %e1 = shl i64 %e1, 52
  %s1 = bitcast i64 %e1 to double
  %e2 = add i64 %n2, 1023
  %e2 = shl i64 %e2, 52
  %s2 = bitcast i64 %e2 to double
  %y = fmul double %p, %s1
  %y = fmul double %y, %s2
  %y = select i1 %nan, double %x, double %y
  ret double %y
}

define internal double @llq.math.log.f64(double %x) alwaysinline {
entry:
  %tiny = fcmp olt double %x, 0x0010000000000000
  %scaled = fmul double %x, 0x4330000000000000
  %a = double %x
  %a = select i1 %tiny, double %scaled, double %a
  %k0 = select i1 %tiny, i64 -52, i64 0
  %ia = bitcast double %a to i64
  %d = sub i64 %ia, 4604544271217802189
  %k = ashr i64 %d, 52
  %k = add i64 %k, %k0
  %mb = and i64 %d, 4503599627370495
  %mb = add i64 %mb, 4604544271217802189
  %m = bitcast i64 %mb to double
  %f = fsub double %m, 1.0
  %den = fadd double %f, 2.0
  %s = fdiv double %f, %den
  %z = fmul double %s, %s
  %q = call double @llvm.fmuladd.f64(double %z, double 0x3FA8618618618618, double 0x3FAAF286BCA1AF28)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FAE1E1E1E1E1E1E)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FB1111111111111)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FB3B13B13B13B14)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FB745D1745D1746)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FBC71C71C71C71C)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FC2492492492492)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FC999999999999A)
  %q = call double @llvm.fmuladd.f64(double %q, double %z, double 0x3FD5555555555555)
  %q = fmul double %q, %z
  %s2 = fadd double %s, %s
  %lm = call double @llvm.fmuladd.f64(double %s2, double %q, double %s2)
  %kf = sitofp i64 %k to double
  %y = call double @llvm.fmuladd.f64(double %kf, double 0x3DEA39EF35793C76, double %lm)
  %y = call double @llvm.fmuladd.f64(double %kf, double 0x3FE62E42FEE00000, double %y)
  %inf = fcmp oeq double %x, 0x7FF0000000000000
  %y = select i1 %inf, double %x, double %y
  %zero = fcmp oeq double %x, 0.0
  %y = select i1 %zero, double 0xFFF0000000000000, double %y
  %neg = fcmp olt double %x, 0.0
  %y = select i1 %neg, double 0x7FF8000000000000, double %y
  %nan = fcmp uno double %x, 0.0
  %y = select i1 %nan, double %x, double %y
  ret double %y
}
)");

/// The functions MathFunctions defines, for exp and log (rows) of float
/// and double (columns).
const char *const Replacements[2][2] = {
    {"llq.math.exp.f32", "llq.math.exp.f64"},
    {"llq.math.log.f32", "llq.math.log.f64"}};

/// The module function standing in for \p Callee called with \p T, or
/// null: exp and log of float or double, as an intrinsic or by libm's
/// name (mathFunctionOf), where the module does not define the callee.
const char *replacementFor(const Function &Callee, Type *T) {
  std::optional<MathFunction> Fn = mathFunctionOf(Callee, T);
  if (!Callee.isDeclaration() || !Fn)
    return nullptr;
  StringRef Name = Fn->Name;
  if (Name != "exp" && Name != "log")
    return nullptr;
  return Replacements[Name == "log"][T->isDoubleTy()];
}

} // namespace

Error expandApproxMath(Module &M) {
  SmallVector<std::pair<CallInst *, const char *>, 8> Calls;
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      auto *CI = dyn_cast<CallInst>(&I);
      if (!CI || !isa<FPMathOperator>(CI) || !CI->hasApproxFunc())
        continue;
      if (Function *Callee = CI->getCalledFunction())
        if (const char *Name = replacementFor(*Callee, CI->getType()))
          Calls.push_back({CI, Name});
    }
  if (Calls.empty())
    return Error::success();
  // A module of its own with one of the reserved names keeps its calls.
  for (const auto &Row : Replacements)
    for (const char *Name : Row)
      if (M.getNamedValue(Name))
        return Error::success();
  if (Error E = MathFunctions.instantiateInto(M).takeError())
    return E;
  for (auto &[CI, Name] : Calls) {
    CI->setCalledFunction(M.getFunction(Name));
    // Attributes of a libm declaration's call site (errno, say) do not
    // belong on the inlined function's.
    CI->setAttributes(AttributeList());
  }
  return Error::success();
}

} // namespace llq::rt::detail
