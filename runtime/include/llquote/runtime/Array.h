//===- Array.h - Multi-dimensional arrays for skeleton kernels --*- C++ -*-===//
//
// The arrays that skeleton kernels read and write. An Array has a Shape
// (rank 0 to MaxRank, int64 extents, row-major: the last index varies
// fastest) and an ElemType: one scalar kind, or a tuple of scalar kinds
// stored as a structure of arrays, one buffer per field. A kernel receives
// buffers(), one pointer per field, and indexes each with the linear index.
//
// Storage is either owned (allocated here, zero-filled, 64-byte aligned and
// padded to a multiple of 64 bytes, so a vector kernel may load a whole last
// vector) or a non-owning view of user buffers (wrap), which the user must
// keep alive, and not free or move, for as long as the Array or any kernel
// using it runs.
//
// bool elements take one byte each, 0 or 1, as LLVM stores an i1.
//
// Mistakes in user input (negative extents, sizes that overflow, vectors of
// the wrong length, a field read as the wrong type) come back as a failed
// Expected; indexing outside a Shape is a broken precondition (asserted).
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_ARRAY_H
#define LLQUOTE_RUNTIME_ARRAY_H

#include "llquote/runtime/Status.h"
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <type_traits>
#include <vector>

namespace llq::rt {

/// The alignment, and size granule, of every buffer an Array allocates.
constexpr size_t BufferAlignment = 64;

enum class ScalarKind : uint8_t {
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F32,
  F64,
  Bool,
  F16, ///< IEEE half precision: C++ `llq::rt::half`, LLVM `half`.
};

/// The C++ type of half-precision elements.
using half = _Float16;

/// Bytes per element: 1, 2, 4 or 8.
size_t byteSize(ScalarKind Kind);
/// The LLVM-style spelling: "i32", "u8", "f64", "bool".
const char *kindName(ScalarKind Kind);

/// The ScalarKind of C++ type T; Valid is false for any other type.
template <typename T> struct ScalarKindOf {
  static constexpr bool Valid = false;
};
#define LLQ_RT_SCALAR(Type, Kind)                                              \
  template <> struct ScalarKindOf<Type> {                                      \
    static constexpr bool Valid = true;                                        \
    static constexpr ScalarKind Value = ScalarKind::Kind;                      \
  };
LLQ_RT_SCALAR(int8_t, I8)
LLQ_RT_SCALAR(int16_t, I16)
LLQ_RT_SCALAR(int32_t, I32)
LLQ_RT_SCALAR(int64_t, I64)
LLQ_RT_SCALAR(uint8_t, U8)
LLQ_RT_SCALAR(uint16_t, U16)
LLQ_RT_SCALAR(uint32_t, U32)
LLQ_RT_SCALAR(uint64_t, U64)
LLQ_RT_SCALAR(float, F32)
LLQ_RT_SCALAR(double, F64)
LLQ_RT_SCALAR(bool, Bool)
LLQ_RT_SCALAR(half, F16)
#undef LLQ_RT_SCALAR
static_assert(sizeof(bool) == 1, "bool elements are stored as one byte");

/// The type of an array's elements, known at run time.
class ElemType {
public:
  static ElemType scalar(ScalarKind Kind) { return ElemType({Kind}, false); }
  /// A tuple of any number of fields; the empty tuple is the unit type,
  /// whose arrays have no buffers.
  static ElemType tuple(std::vector<ScalarKind> Fields) {
    return ElemType(std::move(Fields), true);
  }
  /// T is a scalar type, or a std::tuple of scalar types.
  template <typename T> static ElemType of();

  bool isTuple() const { return IsTuple; }
  size_t numFields() const { return Fields.size(); }
  ScalarKind field(size_t I) const {
    assert(I < Fields.size() && "no such field");
    return Fields[I];
  }
  const std::vector<ScalarKind> &fields() const { return Fields; }
  /// The bytes of one element in memory, over all its fields.
  size_t bytes() const {
    size_t B = 0;
    for (ScalarKind K : Fields)
      B += byteSize(K);
    return B;
  }
  /// "f32", or "(i32, f64)" for a tuple.
  std::string str() const;

  friend bool operator==(const ElemType &A, const ElemType &B) {
    return A.IsTuple == B.IsTuple && A.Fields == B.Fields;
  }
  friend bool operator!=(const ElemType &A, const ElemType &B) {
    return !(A == B);
  }

private:
  ElemType(std::vector<ScalarKind> Kinds, bool Tuple)
      : Fields(std::move(Kinds)), IsTuple(Tuple) {}

  template <typename T> struct Of {
    static_assert(ScalarKindOf<T>::Valid, "not an element type");
    static ElemType get() { return scalar(ScalarKindOf<T>::Value); }
  };
  template <typename... Ts> struct Of<std::tuple<Ts...>> {
    static_assert((ScalarKindOf<Ts>::Valid && ...), "not a tuple of scalars");
    static ElemType get() { return tuple({ScalarKindOf<Ts>::Value...}); }
  };

  std::vector<ScalarKind> Fields;
  bool IsTuple;
};

template <typename T> ElemType ElemType::of() { return Of<T>::get(); }

/// Rank and extents of an array. Always valid: every extent is >= 0 and the
/// number of elements fits in int64_t, so size() and the index conversions
/// cannot overflow.
class Shape {
public:
  static constexpr unsigned MaxRank = 8;
  /// A multi-index; components at positions >= rank() are ignored.
  using Index = std::array<int64_t, MaxRank>;

  /// Rank 0 (DIM0): one element, a scalar.
  Shape() = default;
  static Expected<Shape> make(std::initializer_list<int64_t> Extents) {
    return make(Extents.begin(), Extents.size());
  }
  static Expected<Shape> make(const std::vector<int64_t> &Extents) {
    return make(Extents.data(), Extents.size());
  }
  static Expected<Shape> make(const int64_t *Extents, size_t Rank);

  unsigned rank() const { return Rank; }
  int64_t extent(unsigned Dim) const {
    assert(Dim < Rank && "no such dimension");
    return Extents[Dim];
  }
  /// rank() extents, outermost first.
  const int64_t *extents() const { return Extents.data(); }
  /// The number of elements: the product of the extents (1 at rank 0).
  int64_t size() const { return Size; }

  /// True if every component is in [0, extent).
  bool contains(const Index &I) const;
  /// Row-major linear position of I. Requires contains(I).
  int64_t toIndex(const Index &I) const;
  /// The multi-index at a linear position. Requires 0 <= Linear < size().
  Index fromIndex(int64_t Linear) const;

  /// "[2, 3]"; "[]" at rank 0.
  std::string str() const;

  friend bool operator==(const Shape &A, const Shape &B);
  friend bool operator!=(const Shape &A, const Shape &B) { return !(A == B); }

private:
  unsigned Rank = 0;
  Index Extents{};
  int64_t Size = 1;
};

/// The size of one owned buffer of \p Sh.size() elements of \p Kind: padded
/// to whole BufferAlignment granules and never empty, so that every owned
/// buffer is a valid aligned pointer a vector kernel can load from. Its
/// first Sh.size() * byteSize(Kind) bytes hold the elements. An error when
/// the buffer would exceed PTRDIFF_MAX bytes. Every allocator of array
/// storage (Array::create, a backend's device memory) sizes with it.
Expected<uint64_t> paddedBufferBytes(const Shape &Sh, ScalarKind Kind);

/// Where Array::create takes its buffers from when it is given one: a
/// runtime's pool of freed buffers (BufferPool.h), say. The heap otherwise.
class BufferAllocator {
public:
  virtual ~BufferAllocator() = default;
  /// Bytes (a multiple of BufferAlignment) aligned to BufferAlignment, with
  /// unspecified contents, owned by the pointer (its deleter gives them
  /// back); null when there is no memory.
  virtual std::shared_ptr<std::byte> allocate(size_t Bytes) = 0;
};

class Array {
public:
  /// Whether create() zero-fills the elements. Skeleton outputs that a
  /// kernel writes completely skip it; the padding is always zeroed.
  enum class Fill { Zero, Uninitialized };
  /// Owned storage for Sh.size() elements of Type, zero-filled by default;
  /// from From when it is given, else from the heap.
  static Expected<Array> create(const ElemType &Type, const Shape &Sh,
                                Fill F = Fill::Zero,
                                BufferAllocator *From = nullptr);

  /// Arrays are moved, never copied: a copy would share storage unseen
  /// (clone() makes a deep copy).
  Array(Array &&) = default;
  Array &operator=(Array &&) = default;
  Array(const Array &) = delete;
  Array &operator=(const Array &) = delete;

  /// A view of user buffers, one per field, without copying. Each must hold
  /// Sh.size() elements of its field's type and be aligned for it; null is
  /// accepted only when the array is empty.
  static Expected<Array> wrap(const ElemType &Type, const Shape &Sh,
                              const std::vector<void *> &Buffers);
  template <typename T> static Expected<Array> wrap(const Shape &Sh, T *Data) {
    return wrap(ElemType::of<T>(), Sh, {static_cast<void *>(Data)});
  }

  /// A scalar-typed array holding a copy of Values.
  template <typename T>
  static Expected<Array> fromVector(const Shape &Sh,
                                    const std::vector<T> &Values) {
    return fromVectors<T>(Sh, Values);
  }
  /// A tuple-typed array (a scalar one for one type) with field I copied
  /// from the I-th vector.
  template <typename... Ts>
  static Expected<Array> fromVectors(const Shape &Sh,
                                     const std::vector<Ts> &...Fields);

  /// A copy of one field's elements; the field's kind must be T's.
  template <typename T>
  Expected<std::vector<T>> toVector(size_t Field = 0) const;
  /// One field's buffer; the field's kind must be T's.
  template <typename T> Expected<T *> fieldData(size_t Field = 0);

  /// A deep copy with owned storage, also of a view.
  Expected<Array> clone() const;

  const ElemType &type() const { return Type; }
  const Shape &shape() const { return Sh; }
  int64_t size() const { return Sh.size(); }
  size_t numFields() const { return Buffers.size(); }
  bool ownsData() const { return Owning; }

  /// Requires Field < numFields().
  void *data(size_t Field) {
    assert(Field < Buffers.size() && "no such field");
    return Buffers[Field];
  }
  const void *data(size_t Field) const {
    assert(Field < Buffers.size() && "no such field");
    return Buffers[Field];
  }
  /// numFields() buffer pointers, in field order: the layout a kernel's
  /// argument block expects.
  void *const *buffers() const { return Buffers.data(); }

private:
  struct AlignedFree {
    void operator()(std::byte *P) const;
  };

  Array(ElemType Type, Shape Sh) : Type(std::move(Type)), Sh(Sh) {}
  /// Success if Field exists and holds Want.
  Status checkField(size_t Field, ScalarKind Want) const;
  static Status checkLength(const Shape &Sh, size_t Field, size_t Length);

  template <typename T>
  static void copyIn(void *To, const std::vector<T> &From);
  /// Field I of each tuple of From into To.
  template <size_t I, typename... Us>
  static void copyFieldIn(void *To, const std::vector<std::tuple<Us...>> &From);
  template <typename... Us, size_t... I>
  static Expected<Array> fromTuples(const Shape &Sh,
                                    const std::vector<std::tuple<Us...>> &From,
                                    std::index_sequence<I...>);
  template <typename T> struct IsTupleOf : std::false_type {};
  template <typename... Us>
  struct IsTupleOf<std::tuple<Us...>> : std::true_type {};

  ElemType Type;
  Shape Sh;
  std::vector<void *> Buffers;
  /// The owned buffers; empty for a view.
  std::vector<std::shared_ptr<std::byte>> Storage;
  bool Owning = false;
};

template <typename T> void Array::copyIn(void *To, const std::vector<T> &From) {
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is packed, so copy element by element.
    auto *Bytes = static_cast<uint8_t *>(To);
    for (size_t I = 0; I < From.size(); ++I)
      Bytes[I] = From[I] ? 1 : 0;
  } else if (!From.empty()) {
    std::memcpy(To, From.data(), From.size() * sizeof(T));
  }
}

template <size_t I, typename... Us>
void Array::copyFieldIn(void *To, const std::vector<std::tuple<Us...>> &From) {
  using F = std::tuple_element_t<I, std::tuple<Us...>>;
  if constexpr (std::is_same_v<F, bool>) {
    auto *Bytes = static_cast<uint8_t *>(To);
    for (size_t K = 0; K < From.size(); ++K)
      Bytes[K] = std::get<I>(From[K]) ? 1 : 0;
  } else {
    auto *Out = static_cast<F *>(To);
    for (size_t K = 0; K < From.size(); ++K)
      Out[K] = std::get<I>(From[K]);
  }
}

template <typename... Us, size_t... I>
Expected<Array> Array::fromTuples(const Shape &Sh,
                                  const std::vector<std::tuple<Us...>> &From,
                                  std::index_sequence<I...>) {
  if (Status S = checkLength(Sh, 0, From.size()); !S.ok())
    return S;
  Expected<Array> A = create(ElemType::of<std::tuple<Us...>>(), Sh);
  if (!A)
    return A;
  (copyFieldIn<I>(A->data(I), From), ...);
  return A;
}

template <typename... Ts>
Expected<Array> Array::fromVectors(const Shape &Sh,
                                   const std::vector<Ts> &...Fields) {
  static_assert(sizeof...(Ts) > 0, "fromVectors needs at least one field");
  // One vector of tuples: each tuple field to its own field (arrays hold
  // tuples as a structure of arrays).
  if constexpr (sizeof...(Ts) == 1 && (IsTupleOf<Ts>::value && ...))
    return fromTuples(Sh, Fields...,
                      std::make_index_sequence<
                          std::tuple_size_v<std::tuple_element_t<0, std::tuple<Ts...>>>>());
  else {
    size_t Lengths[] = {Fields.size()...};
    for (size_t I = 0; I < sizeof...(Ts); ++I)
      if (Status S = checkLength(Sh, I, Lengths[I]); !S.ok())
        return S;
    auto Type = [] {
      if constexpr (sizeof...(Ts) == 1)
        return ElemType::of<Ts...>();
      else
        return ElemType::of<std::tuple<Ts...>>();
    }();
    Expected<Array> A = create(Type, Sh);
    if (!A)
      return A;
    size_t Field = 0;
    (copyIn(A->data(Field++), Fields), ...);
    return A;
  }
}

template <typename T>
Expected<std::vector<T>> Array::toVector(size_t Field) const {
  static_assert(ScalarKindOf<T>::Valid, "not an element type");
  if (Status S = checkField(Field, ScalarKindOf<T>::Value); !S.ok())
    return S;
  std::vector<T> Out(static_cast<size_t>(size()));
  if constexpr (std::is_same_v<T, bool>) {
    const auto *Bytes = static_cast<const uint8_t *>(data(Field));
    for (size_t I = 0; I < Out.size(); ++I)
      Out[I] = Bytes[I] != 0;
  } else if (!Out.empty()) {
    std::memcpy(Out.data(), data(Field), Out.size() * sizeof(T));
  }
  return Out;
}

template <typename T> Expected<T *> Array::fieldData(size_t Field) {
  static_assert(ScalarKindOf<T>::Valid, "not an element type");
  if (Status S = checkField(Field, ScalarKindOf<T>::Value); !S.ok())
    return S;
  return static_cast<T *>(data(Field));
}

} // namespace llq::rt

#endif // LLQUOTE_RUNTIME_ARRAY_H
