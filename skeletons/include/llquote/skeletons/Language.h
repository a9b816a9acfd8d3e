//===- Language.h - The array language, without a Runtime --------*- C++ -*-===//
//
// Arrays (Array<T>), scalars, quoted scalar functions (Fn, LLQ_FN) and the
// operations that build array programs (Acc): everything of Skeletons.h
// but the Runtime that compiles and runs them. It is plain C++17, with no
// LLVM header, so that a program built against the ahead-of-time runtime,
// which does not link LLVM, can hold and print arrays; Skeletons.h
// includes it.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_LANGUAGE_H
#define LLQUOTE_SKELETONS_LANGUAGE_H


#include "llquote/runtime/Array.h"
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace llq {

using rt::ElemType;
using rt::ScalarKind;
using rt::Shape;

/// What run() throws: a user mistake (mismatched shapes, a function of the
/// wrong type, an empty fold1, ...) or a failure to compile or run a kernel.
class ArrayError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The deepest expression run() takes: operations on the longest path from
/// the result to an array given by the program. An operation applied to a
/// deeper expression keeps an error, which run() reports as an ArrayError;
/// run() a part of it first and use the result. Expressions of any depth are
/// built and destroyed without recursion; it is compiling them that walks
/// the tree.
constexpr unsigned MaxExpressionDepth = 2048;

class Scalar;

namespace detail {
struct FnImpl;
struct FnBinds;
struct PreludeImpl;
struct Node;
class RuntimeImpl;
using NodeRef = std::shared_ptr<const Node>;
} // namespace detail

/// Named types and helper functions that scalar functions share, written
/// once in LLVM syntax:
///
///   %V3 = type { double, double, double }
///   define internal double @dot(%V3 %a, %V3 %b) { ... }
///
/// A function that names the prelude (LLQ_FN(Prelude, Signature, Body)) may
/// use its types in its signature and body and call its helpers. A named
/// type of a prelude is another name of its type, not a new type: `%V3`
/// above is `{ double, double, double }`, the element of an
/// Array<std::tuple<double, double, double>>. Its names are the prelude's
/// own in the functions that use it: a value there cannot be called %V3.
/// Helpers are inlined like the functions themselves, and each kernel holds
/// one copy of a prelude however many of its functions use it. The text is
/// read once, when the Prelude is made; a mistake in it is reported at its
/// C++ line by every function that names it.
class Prelude {
public:
  explicit Prelude(std::string Text, std::string File = "<prelude>",
                   unsigned Line = 1);
  /// For LLQ_PRELUDE: \p Line is __LINE__ of the macro call (see
  /// Fn::atMacro).
  static Prelude atMacro(std::string Text, std::string File, unsigned Line,
                         bool LineIsLast);
  bool ok() const;
  /// The mistake in the prelude, as file:line:col: error: ...; empty if ok().
  const std::string &error() const;
  std::string where() const;
  /// The text as written.
  const std::string &text() const;
  /// The named types, as (name without the %, LLVM type).
  const std::vector<std::pair<std::string, std::string>> &types() const;
  /// The helpers' names, without the @.
  const std::vector<std::string> &helpers() const;
  const std::shared_ptr<const detail::PreludeImpl> &impl() const { return P; }

private:
  std::shared_ptr<const detail::PreludeImpl> P;
};

/// A scalar function quoted in the dialect: a signature in LLVM syntax,
/// `float (float %a, float %b)`, and a body that assigns the result to `%r`.
/// The body may use `for`, `while`, `if` and reassign variables. It is read
/// once, when the Fn is made; a mistake in it is kept and reported by every
/// operation it is given to, at the Fn's C++ file and line.
class Fn {
public:
  Fn(std::string Signature, std::string Body, std::string File = "<fn>",
     unsigned Line = 1);
  /// A function that uses the named types and helpers of \p Uses.
  Fn(const Prelude &Uses, std::string Signature, std::string Body,
     std::string File = "<fn>", unsigned Line = 1);
  /// For LLQ_FN: \p Line is __LINE__ of the macro call, which is its first
  /// line with GCC and its last with Clang (\p LineIsLast); then the body's
  /// newlines are counted back, so the signature and the start of the body
  /// must be on the LLQ_FN's line, as in `LLQ_FN("i32 (i32 %x)", R"(`.
  static Fn atMacro(std::string Signature, std::string Body, std::string File,
                    unsigned Line, bool LineIsLast);
  static Fn atMacro(const Prelude &Uses, std::string Signature,
                    std::string Body, std::string File, unsigned Line,
                    bool LineIsLast);

  /// True when the function was read without error.
  bool ok() const;
  /// The error in the function, as file:line:col: error: ...; empty if ok().
  const std::string &error() const;
  /// "file.cpp:12", where the Fn was written.
  std::string where() const;
  /// The parameter and result types as LLVM prints them ("float",
  /// "{ i32, float }").
  const std::vector<std::string> &paramTypes() const;
  const std::string &resultType() const;
  /// Process-unique; functions with equal ids compile to the same code.
  uint64_t id() const;

  /// The same function, reading Arrays, which are computed before the
  /// kernel that calls it. Declared in the signature as `array<T> %xs` or
  /// `array<T, R> %m` (after the other parameters, in the order given
  /// here), an array is read with `call T @xs(i64 %i)` and its extents are
  /// `%xs.n0`, ...; the operation checks each array's element type and rank
  /// against the declaration, and the checked mode each read's index.
  /// Otherwise the function takes, for each array, one `ptr` per field and
  /// one `i64` extent per dimension, and loads from them unchecked.
  Fn with(std::vector<class Acc> Arrays) const;
  const std::vector<class Acc> &arrays() const;
  /// The parameters the arrays add, as LLVM spells them.
  std::vector<std::string> arrayParamTypes() const;

  /// The same function with its parameter %Name given the value V at run
  /// time (a closure's captured value): operations give it the other
  /// parameters, and V travels in the kernel's argument block like a seed,
  /// so binding another value compiles nothing. Binding a name again
  /// replaces its value. A parameter that does not exist, or a value of
  /// another type, is this Fn's error, at the bind's C++ line.
  Fn bind(const std::string &Name, const Scalar &V,
          const char *File = __builtin_FILE(),
          unsigned Line = __builtin_LINE()) const;
  /// The bound parameters, as (position, value), by position.
  const std::vector<std::pair<unsigned, Scalar>> &bound() const;
  /// The types of the parameters an operation gives the function: all but
  /// the bound ones (arrays' included).
  std::vector<std::string> openParamTypes() const;

  const detail::FnImpl &impl() const { return *P; }

private:
  std::shared_ptr<const detail::FnImpl> P;
  std::shared_ptr<const std::vector<class Acc>> Arrays;
  std::shared_ptr<const detail::FnBinds> Binds;
};

/// An Fn read once per place in the program, however often the line runs:
/// LLQ_FN(Signature, Body), or LLQ_FN(Prelude, Signature, Body) for one
/// that uses a prelude's types and helpers.
#if defined(__clang__)
#define LLQ_FN_LINE_IS_LAST_ true
#else
#define LLQ_FN_LINE_IS_LAST_ false
#endif
#define LLQ_FN(...)                                                            \
  ([](const auto &...LLQ_Args_) -> ::llq::Fn {                                 \
    static const ::llq::Fn LLQ_Fn_ = ::llq::detail::fnAtMacro(                 \
        __FILE__, __LINE__, LLQ_FN_LINE_IS_LAST_, LLQ_Args_...);               \
    return LLQ_Fn_;                                                            \
  }(__VA_ARGS__))
/// A Prelude read once per place in the program; LLQ_PRELUDE(R"( on the
/// macro's line, as for LLQ_FN.
#define LLQ_PRELUDE(Text)                                                      \
  ([]() -> const ::llq::Prelude & {                                            \
    static const ::llq::Prelude LLQ_Prelude_ = ::llq::Prelude::atMacro(        \
        (Text), __FILE__, __LINE__, LLQ_FN_LINE_IS_LAST_);                     \
    return LLQ_Prelude_;                                                       \
  }())

namespace detail {
inline Fn fnAtMacro(const char *File, unsigned Line, bool LineIsLast,
                    std::string Signature, std::string Body) {
  return Fn::atMacro(std::move(Signature), std::move(Body), File, Line,
                     LineIsLast);
}
inline Fn fnAtMacro(const char *File, unsigned Line, bool LineIsLast,
                    const Prelude &Uses, std::string Signature,
                    std::string Body) {
  return Fn::atMacro(Uses, std::move(Signature), std::move(Body), File, Line,
                     LineIsLast);
}
} // namespace detail

template <typename T> struct IsTuple : std::false_type {};
template <typename... Ts> struct IsTuple<std::tuple<Ts...>> : std::true_type {};

/// One element: a scalar, or a tuple of scalars. Seeds, fill values and
/// boundary constants are Scalars, and so is what a scalar array holds.
class Scalar {
public:
  template <typename T, typename = std::enable_if_t<rt::ScalarKindOf<T>::Valid>>
  Scalar(T V) : Type(ElemType::of<T>()) {
    Bits.push_back(toBits(V));
  }
  template <typename... Ts>
  Scalar(const std::tuple<Ts...> &V) : Type(ElemType::of<std::tuple<Ts...>>()) {
    std::apply([this](const Ts &...F) { (Bits.push_back(toBits(F)), ...); }, V);
  }
  /// From raw field bits, as arrays store them.
  Scalar(ElemType Type, std::vector<uint64_t> Bits)
      : Type(std::move(Type)), Bits(std::move(Bits)) {}

  const ElemType &type() const { return Type; }
  uint64_t bits(size_t Field) const { return Bits.at(Field); }
  const std::vector<uint64_t> &allBits() const { return Bits; }

  /// The value as T; throws ArrayError if T is not the element type.
  template <typename T> T get() const;
  template <typename T, typename = std::enable_if_t<rt::ScalarKindOf<T>::Valid ||
                                                    IsTuple<T>::value>>
  operator T() const {
    return get<T>();
  }
  /// "1.5", "(1, 2.5)".
  std::string str() const;

private:
  template <typename T> static uint64_t toBits(T V) {
    uint64_t B = 0;
    std::memcpy(&B, &V, sizeof(T));
    return B;
  }
  template <typename T> static T fromBits(uint64_t B) {
    T V;
    std::memcpy(&V, &B, sizeof(T));
    return V;
  }
  void checkType(const ElemType &Want) const;
  template <typename T, size_t... I>
  T getTuple(std::index_sequence<I...>) const {
    return T(fieldAs<std::tuple_element_t<I, T>>(I)...);
  }
  template <typename F> F fieldAs(size_t I) const {
    if constexpr (std::is_same_v<F, bool>)
      return Bits[I] != 0;
    else
      return fromBits<F>(Bits[I]);
  }

  ElemType Type;
  std::vector<uint64_t> Bits;
};

/// The element type of an untyped Array<>.
struct Dyn {};

template <typename T = Dyn> class Array;

/// An array expression: delayed until a Runtime runs it.
class Acc {
public:
  Acc() = default;
  explicit Acc(detail::NodeRef N) : N(std::move(N)) {}
  template <typename T> Acc(const Array<T> &A);

  const ElemType &type() const;
  const Shape &shape() const;
  /// The first mistake in this expression or its inputs; empty if none.
  const std::string &error() const;
  const detail::NodeRef &node() const { return N; }

private:
  detail::NodeRef N;
};

namespace detail {
/// The manifest array an Array<T> handle shares.
class ArrayHandle {
public:
  ArrayHandle() = default;
  explicit ArrayHandle(std::shared_ptr<rt::Array> A) : A(std::move(A)) {}
  const Shape &shape() const { return A->shape(); }
  const ElemType &type() const { return A->type(); }
  int64_t size() const { return A->size(); }
  rt::Array &raw() const { return *A; }
  const std::shared_ptr<rt::Array> &shared() const { return A; }
  /// Element at a linear position.
  Scalar at(int64_t Linear) const;

protected:
  std::shared_ptr<rt::Array> A;
};
void checkArrayType(const ElemType &Have, const ElemType &Want);
/// The LLVM spelling of an element type.
std::string irTypeOf(const ElemType &T);
template <typename T> std::string irTypeOf() { return irTypeOf(ElemType::of<T>()); }
} // namespace detail

/// A manifest array of T (a scalar type or a std::tuple of them; Dyn for a
/// type known only at run time). Copies share the data.
template <typename T> class Array : public detail::ArrayHandle {
public:
  Array() = default;
  explicit Array(std::shared_ptr<rt::Array> Data)
      : ArrayHandle(std::move(Data)) {
    if constexpr (!std::is_same_v<T, Dyn>)
      detail::checkArrayType(type(), ElemType::of<T>());
  }
  /// The element of a rank-0 (or one-element) array.
  auto scalar() const {
    if (size() != 1)
      throw ArrayError("scalar() of an array of shape " + shape().str());
    if constexpr (std::is_same_v<T, Dyn>)
      return at(0);
    else
      return at(0).template get<T>();
  }
  template <typename U = T> std::vector<U> toVector() const {
    static_assert(!std::is_same_v<U, Dyn>, "toVector<T>() of an Array<>");
    detail::checkArrayType(type(), ElemType::of<U>());
    if constexpr (rt::ScalarKindOf<U>::Valid) {
      return std::move(*A->template toVector<U>(0));
    } else {
      return tupleVector<U>(
          std::make_index_sequence<std::tuple_size_v<U>>());
    }
  }
  /// The same data, typed; throws ArrayError if U is not the element type.
  template <typename U> Array<U> as() const { return Array<U>(A); }
  /// Field K of every element of a tuple array, as a vector.
  template <size_t K> auto field() const {
    static_assert(IsTuple<T>::value, "field<K>() of an Array of tuples");
    using F = std::tuple_element_t<K, T>;
    return std::move(*A->template toVector<F>(K));
  }

private:
  template <typename U, size_t... I>
  std::vector<U> tupleVector(std::index_sequence<I...>) const {
    auto Fields = std::make_tuple(
        std::move(*A->template toVector<std::tuple_element_t<I, U>>(I))...);
    std::vector<U> Out;
    Out.reserve(size_t(size()));
    for (size_t K = 0; K < size_t(size()); ++K)
      Out.emplace_back(std::get<I>(Fields)[K]...);
    return Out;
  }
};

/// The array in Accelerate's layout: `Vector (Z :. 3) [1,2,3]`,
/// `Matrix (Z :. 2 :. 2)\n  [ 1, 2,\n    3, 4]`, `Scalar Z [5]`.
std::string show(const detail::ArrayHandle &A);

/// A vector holding a copy of Values.
template <typename T> Array<T> fromVector(const std::vector<T> &Values) {
  rt::Expected<Shape> Sh = Shape::make({int64_t(Values.size())});
  rt::Expected<rt::Array> A = rt::Array::fromVector(*Sh, Values);
  if (!A)
    throw ArrayError(A.message());
  return Array<T>(std::make_shared<rt::Array>(std::move(*A)));
}
/// An array of the given extents holding a copy of Values (row-major).
template <typename T>
Array<T> fromVector(const std::vector<int64_t> &Extents,
                    const std::vector<T> &Values) {
  rt::Expected<Shape> Sh = Shape::make(Extents);
  if (!Sh)
    throw ArrayError(Sh.message());
  rt::Expected<rt::Array> A = rt::Array::fromVector(*Sh, Values);
  if (!A)
    throw ArrayError(A.message());
  return Array<T>(std::make_shared<rt::Array>(std::move(*A)));
}
/// A tuple array from one vector per field.
template <typename... Ts>
Array<std::tuple<Ts...>> fromVectors(const std::vector<int64_t> &Extents,
                                     const std::vector<Ts> &...Fields) {
  rt::Expected<Shape> Sh = Shape::make(Extents);
  if (!Sh)
    throw ArrayError(Sh.message());
  rt::Expected<rt::Array> A = rt::Array::fromVectors(*Sh, Fields...);
  if (!A)
    throw ArrayError(A.message());
  return Array<std::tuple<Ts...>>(std::make_shared<rt::Array>(std::move(*A)));
}

using Extents = std::vector<int64_t>;

//===-- Producers: delayed, fused into their consumer ----------------------===//

/// Acc from a manifest array.
Acc use(std::shared_ptr<rt::Array> A);
template <typename T> Acc::Acc(const Array<T> &A) : Acc(use(A.shared())) {}
/// F: one i64 parameter per dimension, outermost first.
Acc generate(const Extents &Sh, const Fn &F);
Acc map(const Fn &F, const Acc &A);
/// Over the intersection of the shapes; F takes one element of each.
Acc zipWith(const Fn &F, const Acc &A, const Acc &B);
Acc zipWith(const Fn &F, const Acc &A, const Acc &B, const Acc &C);
Acc zipWith(const Fn &F, const Acc &A, const Acc &B, const Acc &C,
            const Acc &D);
/// Index-aware forms: F takes the element's index first, one i64 per
/// dimension (outermost first), then the elements: F(i, ..., A[ix], ...).
Acc imap(const Fn &F, const Acc &A);
Acc izipWith(const Fn &F, const Acc &A, const Acc &B);
Acc izipWith(const Fn &F, const Acc &A, const Acc &B, const Acc &C);
/// Element Ix of the result is F(A[Proj(Ix)]); Proj takes one i64 per
/// dimension of Sh and returns i64 (rank 1) or a struct of i64s.
Acc transform(const Extents &Sh, const Fn &Proj, const Fn &F, const Acc &A);
Acc backpermute(const Extents &Sh, const Fn &Proj, const Acc &A);
/// The same elements in another shape of the same size.
Acc reshape(const Extents &Sh, const Acc &A);
Acc reverse(const Acc &A);   ///< A vector, last element first.
Acc transpose(const Acc &A); ///< A matrix, rows and columns swapped.
/// One dimension of a slice specification, as Accelerate writes them
/// (`Z :. All :. 3`): All, or a number. In replicate the number is the
/// extent of a new dimension; in slice, the index the dimension is fixed
/// at.
struct SliceDim {
  SliceDim(int64_t N) : N(N) {}
  static SliceDim all() {
    SliceDim D(0);
    D.IsAll = true;
    return D;
  }
  bool IsAll = false;
  int64_t N = 0;
};
inline const SliceDim All = SliceDim::all();
/// The rank r-1 array at outermost index I.
Acc slice(const Acc &A, int64_t I);
/// A with the dimensions where Spec has numbers fixed at them, outermost
/// first: slice(m, {All, 2}) is column 2 of a matrix, slice(m, {2, All})
/// its row 2. The indices are passed at run time.
Acc slice(const Acc &A, const std::vector<SliceDim> &Spec);
/// N copies of A along a new outermost dimension.
Acc replicate(int64_t N, const Acc &A);
/// A with new dimensions where Spec has numbers, outermost first:
/// replicate({All, 3}, v) of a vector is a matrix of 3 columns, each v.
Acc replicate(const std::vector<SliceDim> &Spec, const Acc &A);
/// The innermost dimension cut or joined (Accelerate's take, drop, init,
/// tail and ++), delayed like reverse: over the intersection of the outer
/// dimensions. take(N, A) keeps the first min(N, n) elements of each row,
/// drop(N, A) the rest; init leaves out the last, tail the first (an empty
/// innermost dimension is an error for both); a negative N is an error. The
/// count is passed at run time: take(5, A) and take(7, A) are one kernel.
Acc take(int64_t N, const Acc &A);
Acc drop(int64_t N, const Acc &A);
Acc init(const Acc &A);
Acc tail(const Acc &A);
/// A's rows followed by B's: n + m elements in the innermost dimension.
Acc concat(const Acc &A, const Acc &B);
/// The arrays' elements side by side, as tuples (Accelerate's zip), over
/// the intersection of the shapes; each array holds scalars.
Acc zip(const Acc &A, const Acc &B);
Acc zip(const Acc &A, const Acc &B, const Acc &C);
Acc zip(const Acc &A, const Acc &B, const Acc &C, const Acc &D);
/// Field K of each element of a tuple array, delayed: no copy of the other
/// fields is made or read. fst and snd are fields 0 and 1; unzip gives
/// every field.
Acc field(unsigned K, const Acc &A);
Acc fst(const Acc &A);
Acc snd(const Acc &A);
std::vector<Acc> unzip(const Acc &A);
Acc fill(const Extents &Sh, const Scalar &V);
/// Start, Start+1, ... in row-major order; integer or float elements.
Acc enumFromN(const Extents &Sh, const Scalar &Start);

//===-- Consumers: each runs as a kernel of its own ------------------------===//

/// Reduces the innermost dimension: Seed ⊕ x0 ⊕ ... ⊕ xn-1. F must be
/// associative; partials are combined in index order.
Acc fold(const Fn &F, const Scalar &Seed, const Acc &A);
Acc fold1(const Fn &F, const Acc &A);
/// Reduces every element to a scalar (rank 0).
Acc foldAll(const Fn &F, const Scalar &Seed, const Acc &A);
Acc fold1All(const Fn &F, const Acc &A);
/// Reduces segments of the innermost dimension; Segs is a vector of i32 or
/// i64 lengths that sum to the innermost extent.
Acc foldSeg(const Fn &F, const Scalar &Seed, const Acc &A, const Acc &Segs);
Acc fold1Seg(const Fn &F, const Acc &A, const Acc &Segs);

/// The reductions by name, each a fold of the innermost dimension with
/// its operation's identity as the seed: 0 for sum, 1 for product, the
/// type's greatest value (+inf for floats) for minimum and its least for
/// maximum (so an empty row gives that value), true for and_ and all,
/// false for or_ and any. sum, product, minimum and maximum take numbers;
/// and_ and or_ take bools (`and` and `or` are C++'s own words); all(P, A)
/// and any(P, A) take a predicate P returning i1. For the whole array, fold
/// reshape({n}, A).
Acc sum(const Acc &A);
Acc product(const Acc &A);
Acc minimum(const Acc &A);
Acc maximum(const Acc &A);
Acc and_(const Acc &A);
Acc or_(const Acc &A);
Acc all(const Fn &P, const Acc &A);
Acc any(const Fn &P, const Acc &A);

/// Scans of the innermost dimension, each row on its own (a vector is one
/// row). scanl's rows have n+1 elements, starting with Seed.
Acc scanl(const Fn &F, const Scalar &Seed, const Acc &A);
Acc scanl1(const Fn &F, const Acc &A);
/// scanl': the n exclusive prefixes of each row, and the rows' totals (one
/// rank less).
std::pair<Acc, Acc> scanlPrime(const Fn &F, const Scalar &Seed, const Acc &A);
Acc scanr(const Fn &F, const Scalar &Seed, const Acc &A);
Acc scanr1(const Fn &F, const Acc &A);
std::pair<Acc, Acc> scanrPrime(const Fn &F, const Scalar &Seed, const Acc &A);
/// scanl of each segment of each row (Segs: lengths that add up to the
/// innermost extent): a segment of length l gives l+1 elements.
Acc scanlSeg(const Fn &F, const Scalar &Seed, const Acc &A, const Acc &Segs);
Acc scanrSeg(const Fn &F, const Scalar &Seed, const Acc &A, const Acc &Segs);

/// Scatter: starts from Defaults; each element of Src goes to Proj(Ix) and
/// is combined there with Combine(new, old). Proj returns a target index
/// (i64, or a struct of i64s); any target outside Defaults' shape, -1 for
/// instance, is dropped. Combine must be associative and commutative.
Acc permute(const Fn &Combine, const Acc &Defaults, const Fn &Proj,
            const Acc &Src);

/// What a stencil reads outside its array.
struct Boundary {
  enum Kind : uint8_t { Clamp, Mirror, Wrap, Constant };
  Kind K = Clamp;
  std::optional<Scalar> Value;
  static Boundary clamp() { return {Clamp, std::nullopt}; }
  static Boundary mirror() { return {Mirror, std::nullopt}; }
  static Boundary wrap() { return {Wrap, std::nullopt}; }
  static Boundary constant(const Scalar &V) { return {Constant, V}; }
};

/// F takes the k^rank neighbours of each element (k = 3, 5, 7 or 9, from
/// F's arity), in row-major order, and returns the new element.
Acc stencil(const Fn &F, const Boundary &B, const Acc &A);
/// The same with a size for each dimension, outermost first, each odd from
/// 1 to 9: {1, 5} is a horizontal window of 5, {5, 5, 3} a box. F takes
/// their product of neighbours.
Acc stencil(const Fn &F, const Extents &Sizes, const Boundary &B,
            const Acc &A);
/// F takes A's neighbourhood, then B's (same k); over the intersection.
Acc stencil2(const Fn &F, const Boundary &BA, const Acc &A,
             const Boundary &BB, const Acc &B);
/// The same with sizes for each array: B's window may differ from A's.
Acc stencil2(const Fn &F, const Extents &SizesA, const Boundary &BA,
             const Acc &A, const Extents &SizesB, const Boundary &BB,
             const Acc &B);

/// The elements of the vector A for which P (i1 (A)) holds, in order
/// (Accelerate's filter), and those whose flag (a vector of bool; over the
/// shorter of the two) is set (compact). The length is known only after
/// the run: the result may be run and its array used in later expressions,
/// but not used inside another expression (an error says so); its shape()
/// before the run is its bound, A's length.
Acc filter(const Fn &P, const Acc &A);
Acc compact(const Acc &Flags, const Acc &A);

//===-- Control: a choice and a loop inside one run ------------------------===//

/// A if P holds, else B (Accelerate's acond). P is a scalar of bool (rank
/// 0) that the program computes: it is computed first, then only the
/// array chosen. A and B have one element type and shape.
Acc acond(const Acc &P, const Acc &A, const Acc &B);
/// Accelerate's awhile: from Init, X = Step(X) as long as Cond(X), a scalar
/// of bool, holds; the result is the first X for which it does not. Cond
/// and Step are called once, here, on a stand-in for the loop's value: the
/// expressions they return are the loop's body, planned and compiled once
/// by the run, whatever the number of iterations. Step(X) keeps X's
/// element type and shape. Each iteration reads one bool back to the host.
Acc awhile(const std::function<Acc(const Acc &)> &Cond,
           const std::function<Acc(const Acc &)> &Step, const Acc &Init);

//===-- Scalar access, out of line ----------------------------------------===//

template <typename T> T Scalar::get() const {
  if constexpr (rt::ScalarKindOf<T>::Valid) {
    checkType(ElemType::of<T>());
    if constexpr (std::is_same_v<T, bool>)
      return Bits[0] != 0;
    else
      return fromBits<T>(Bits[0]);
  } else {
    checkType(ElemType::of<T>());
    return getTuple<T>(std::make_index_sequence<std::tuple_size_v<T>>());
  }
}

} // namespace llq

#if __has_include(<fmt/format.h>)
#include <fmt/format.h>
/// fmt::print("{}", A) prints an Array as show() does.
template <typename T> struct fmt::formatter<llq::Array<T>> {
  constexpr auto parse(fmt::format_parse_context &Ctx) { return Ctx.begin(); }
  template <typename Context>
  auto format(const llq::Array<T> &A, Context &Ctx) const {
    return fmt::format_to(Ctx.out(), "{}", llq::show(A));
  }
};
#endif

#endif // LLQUOTE_SKELETONS_LANGUAGE_H
