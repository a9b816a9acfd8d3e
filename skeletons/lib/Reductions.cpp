//===- Reductions.cpp - sum, product, minimum, maximum, and_, or_, all, any ===//
//
// The reductions Accelerate's users call by name, each a fold of the
// innermost dimension (Fold.cpp) with the combining function of its
// operation and element type and that operation's identity as the seed.
// The functions are quoted once each, at their own lines below, so every
// sum of i32s is one function text, and one kernel with any other fold of
// that text. A type the operation does not take is an error kept in the
// result, as for any operation.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Node.h"
#include <cstring>
#include <fmt/format.h>
#include <limits>

using namespace llq;
using namespace llq::detail;

namespace {

enum class Reduction { Sum, Product, Minimum, Maximum, And, Or };

/// The combining function of R for elements of kind K, or none.
std::optional<Fn> combining(Reduction R, ScalarKind K) {
  switch (R) {
  case Reduction::Sum:
    switch (K) {
    case ScalarKind::I8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = add i8 %a, %b");
    case ScalarKind::I16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = add i16 %a, %b");
    case ScalarKind::I32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
    case ScalarKind::I64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
    case ScalarKind::U8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = add i8 %a, %b");
    case ScalarKind::U16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = add i16 %a, %b");
    case ScalarKind::U32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
    case ScalarKind::U64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
    case ScalarKind::F16:
      return LLQ_FN("half (half %a, half %b)", "%r = fadd half %a, %b");
    case ScalarKind::F32:
      return LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
    case ScalarKind::F64:
      return LLQ_FN("double (double %a, double %b)", "%r = fadd double %a, %b");
    default:
      break;
    }
    break;
  case Reduction::Product:
    switch (K) {
    case ScalarKind::I8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = mul i8 %a, %b");
    case ScalarKind::I16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = mul i16 %a, %b");
    case ScalarKind::I32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = mul i32 %a, %b");
    case ScalarKind::I64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = mul i64 %a, %b");
    case ScalarKind::U8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = mul i8 %a, %b");
    case ScalarKind::U16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = mul i16 %a, %b");
    case ScalarKind::U32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = mul i32 %a, %b");
    case ScalarKind::U64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = mul i64 %a, %b");
    case ScalarKind::F16:
      return LLQ_FN("half (half %a, half %b)", "%r = fmul half %a, %b");
    case ScalarKind::F32:
      return LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
    case ScalarKind::F64:
      return LLQ_FN("double (double %a, double %b)", "%r = fmul double %a, %b");
    default:
      break;
    }
    break;
  case Reduction::Minimum:
    switch (K) {
    case ScalarKind::I8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = call i8 @llvm.smin.i8(i8 %a, i8 %b)");
    case ScalarKind::I16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = call i16 @llvm.smin.i16(i16 %a, i16 %b)");
    case ScalarKind::I32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = call i32 @llvm.smin.i32(i32 %a, i32 %b)");
    case ScalarKind::I64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = call i64 @llvm.smin.i64(i64 %a, i64 %b)");
    case ScalarKind::U8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = call i8 @llvm.umin.i8(i8 %a, i8 %b)");
    case ScalarKind::U16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = call i16 @llvm.umin.i16(i16 %a, i16 %b)");
    case ScalarKind::U32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = call i32 @llvm.umin.i32(i32 %a, i32 %b)");
    case ScalarKind::U64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = call i64 @llvm.umin.i64(i64 %a, i64 %b)");
    case ScalarKind::F16:
      return LLQ_FN("half (half %a, half %b)", "%r = call half @llvm.minnum.f16(half %a, half %b)");
    case ScalarKind::F32:
      return LLQ_FN("float (float %a, float %b)", "%r = call float @llvm.minnum.f32(float %a, float %b)");
    case ScalarKind::F64:
      return LLQ_FN("double (double %a, double %b)", "%r = call double @llvm.minnum.f64(double %a, double %b)");
    default:
      break;
    }
    break;
  case Reduction::Maximum:
    switch (K) {
    case ScalarKind::I8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = call i8 @llvm.smax.i8(i8 %a, i8 %b)");
    case ScalarKind::I16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = call i16 @llvm.smax.i16(i16 %a, i16 %b)");
    case ScalarKind::I32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = call i32 @llvm.smax.i32(i32 %a, i32 %b)");
    case ScalarKind::I64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = call i64 @llvm.smax.i64(i64 %a, i64 %b)");
    case ScalarKind::U8:
      return LLQ_FN("i8 (i8 %a, i8 %b)", "%r = call i8 @llvm.umax.i8(i8 %a, i8 %b)");
    case ScalarKind::U16:
      return LLQ_FN("i16 (i16 %a, i16 %b)", "%r = call i16 @llvm.umax.i16(i16 %a, i16 %b)");
    case ScalarKind::U32:
      return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = call i32 @llvm.umax.i32(i32 %a, i32 %b)");
    case ScalarKind::U64:
      return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = call i64 @llvm.umax.i64(i64 %a, i64 %b)");
    case ScalarKind::F16:
      return LLQ_FN("half (half %a, half %b)", "%r = call half @llvm.maxnum.f16(half %a, half %b)");
    case ScalarKind::F32:
      return LLQ_FN("float (float %a, float %b)", "%r = call float @llvm.maxnum.f32(float %a, float %b)");
    case ScalarKind::F64:
      return LLQ_FN("double (double %a, double %b)", "%r = call double @llvm.maxnum.f64(double %a, double %b)");
    default:
      break;
    }
    break;
  case Reduction::And:
    switch (K) {
    case ScalarKind::Bool:
      return LLQ_FN("i1 (i1 %a, i1 %b)", "%r = and i1 %a, %b");
    default:
      break;
    }
    break;
  case Reduction::Or:
    switch (K) {
    case ScalarKind::Bool:
      return LLQ_FN("i1 (i1 %a, i1 %b)", "%r = or i1 %a, %b");
    default:
      break;
    }
    break;
  }
  return std::nullopt;
}

template <typename T> Scalar bitsOf(ScalarKind K, T V) {
  uint64_t B = 0;
  std::memcpy(&B, &V, sizeof(T));
  return Scalar(ElemType::scalar(K), {B});
}

/// The identity of R for kind K: x = x op identity.
Scalar identity(Reduction R, ScalarKind K) {
  bool Least = R == Reduction::Maximum;
  bool Greatest = R == Reduction::Minimum;
  auto Int = [&](auto Zero) {
    using T = decltype(Zero);
    T V = Greatest ? std::numeric_limits<T>::max()
          : Least  ? std::numeric_limits<T>::lowest()
                   : T(R == Reduction::Product ? 1 : 0);
    return bitsOf(K, V);
  };
  switch (K) {
  case ScalarKind::I8:
    return Int(int8_t());
  case ScalarKind::I16:
    return Int(int16_t());
  case ScalarKind::I32:
    return Int(int32_t());
  case ScalarKind::I64:
    return Int(int64_t());
  case ScalarKind::U8:
    return Int(uint8_t());
  case ScalarKind::U16:
    return Int(uint16_t());
  case ScalarKind::U32:
    return Int(uint32_t());
  case ScalarKind::U64:
    return Int(uint64_t());
  case ScalarKind::F16:
    return bitsOf(K, uint16_t(Greatest ? 0x7C00 // +inf
                              : Least  ? 0xFC00 // -inf
                              : R == Reduction::Product ? 0x3C00 // 1.0
                                                        : 0));
  case ScalarKind::F32:
    return bitsOf(K, Greatest ? std::numeric_limits<float>::infinity()
                     : Least  ? -std::numeric_limits<float>::infinity()
                              : float(R == Reduction::Product ? 1 : 0));
  case ScalarKind::F64:
    return bitsOf(K, Greatest ? std::numeric_limits<double>::infinity()
                     : Least  ? -std::numeric_limits<double>::infinity()
                              : double(R == Reduction::Product ? 1 : 0));
  case ScalarKind::Bool:
    return Scalar(R == Reduction::And);
  }
  return Scalar(false);
}

/// An Acc that holds Message as its error (or A's, which comes first).
Acc failed(const char *Name, const Acc &A, std::string Message) {
  auto N = makeNode(Op::Map, Name, {A.node()});
  if (N->Error.empty())
    N->Error = std::move(Message);
  return Acc(N);
}

Acc reduce(const char *Name, Reduction R, const Acc &A, const char *Wants) {
  if (!A.node() || !A.error().empty())
    return failed(Name, A, "");
  const ElemType &T = A.type();
  std::optional<Fn> F;
  if (!T.isTuple() && T.numFields() == 1)
    F = combining(R, T.field(0));
  if (!F)
    return failed(Name, A,
                  fmt::format("{}: needs an array of {}, not of {}", Name,
                              Wants, T.str()));
  if (A.shape().rank() == 0)
    return failed(Name, A,
                  fmt::format("{}: reduces the innermost dimension, and a "
                              "scalar has none",
                              Name));
  return fold(*F, identity(R, T.field(0)), A);
}

/// all and any: the predicate's results folded.
Acc test(const char *Name, Reduction R, const Fn &P, const Acc &A) {
  if (!P.ok())
    return failed(Name, A, P.error());
  if (P.resultType() != "i1")
    return failed(Name, A,
                  fmt::format("{}: error: {}: the predicate returns {}, not i1",
                              P.where(), Name, P.resultType()));
  Acc Tested = map(P, A);
  if (!Tested.error().empty())
    return Tested;
  return reduce(Name, R, Tested, "bools");
}

} // namespace

Acc llq::sum(const Acc &A) { return reduce("sum", Reduction::Sum, A, "numbers"); }
Acc llq::product(const Acc &A) {
  return reduce("product", Reduction::Product, A, "numbers");
}
Acc llq::minimum(const Acc &A) {
  return reduce("minimum", Reduction::Minimum, A, "numbers");
}
Acc llq::maximum(const Acc &A) {
  return reduce("maximum", Reduction::Maximum, A, "numbers");
}
Acc llq::and_(const Acc &A) { return reduce("and_", Reduction::And, A, "bools"); }
Acc llq::or_(const Acc &A) { return reduce("or_", Reduction::Or, A, "bools"); }
Acc llq::all(const Fn &P, const Acc &A) {
  return test("all", Reduction::And, P, A);
}
Acc llq::any(const Fn &P, const Acc &A) {
  return test("any", Reduction::Or, P, A);
}
