//===- Array.cpp - Multi-dimensional arrays for skeleton kernels ----------===//
//
// Validation of shapes and buffers, aligned allocation, and index
// arithmetic. Every size is checked for overflow before it is used, so bad
// input ends in a failed Expected, never in undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Array.h"
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <new>
#include <optional>

using namespace llq::rt;

namespace {

/// The most bytes one buffer may take: what pointer differences can span,
/// rounded down to the allocation granule so that padding cannot overflow.
constexpr uint64_t MaxBufferBytes =
    uint64_t(PTRDIFF_MAX) / BufferAlignment * BufferAlignment;

/// Bytes for Count elements of Kind, or nothing if that exceeds
/// MaxBufferBytes.
std::optional<uint64_t> bufferBytes(int64_t Count, ScalarKind Kind) {
  uint64_t Bytes;
  if (__builtin_mul_overflow(uint64_t(Count), uint64_t(byteSize(Kind)),
                             &Bytes) ||
      Bytes > MaxBufferBytes)
    return std::nullopt;
  return Bytes;
}

std::string tooLarge(const Shape &Sh, ScalarKind Kind) {
  return "array of shape " + Sh.str() + " and " + kindName(Kind) +
         " elements needs more than " + std::to_string(MaxBufferBytes) +
         " bytes per buffer";
}

} // namespace

size_t llq::rt::byteSize(ScalarKind Kind) {
  switch (Kind) {
  case ScalarKind::I8:
  case ScalarKind::U8:
  case ScalarKind::Bool:
    return 1;
  case ScalarKind::I16:
  case ScalarKind::U16:
  case ScalarKind::F16:
    return 2;
  case ScalarKind::I32:
  case ScalarKind::U32:
  case ScalarKind::F32:
    return 4;
  case ScalarKind::I64:
  case ScalarKind::U64:
  case ScalarKind::F64:
    return 8;
  }
  assert(false && "unknown scalar kind");
  return 1;
}

const char *llq::rt::kindName(ScalarKind Kind) {
  switch (Kind) {
  case ScalarKind::I8:
    return "i8";
  case ScalarKind::I16:
    return "i16";
  case ScalarKind::I32:
    return "i32";
  case ScalarKind::I64:
    return "i64";
  case ScalarKind::U8:
    return "u8";
  case ScalarKind::U16:
    return "u16";
  case ScalarKind::U32:
    return "u32";
  case ScalarKind::U64:
    return "u64";
  case ScalarKind::F16:
    return "f16";
  case ScalarKind::F32:
    return "f32";
  case ScalarKind::F64:
    return "f64";
  case ScalarKind::Bool:
    return "bool";
  }
  assert(false && "unknown scalar kind");
  return "?";
}

std::string ElemType::str() const {
  if (!IsTuple)
    return kindName(Fields.front());
  std::string Out = "(";
  for (size_t I = 0; I < Fields.size(); ++I)
    Out += (I ? ", " : "") + std::string(kindName(Fields[I]));
  return Out + ")";
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

Expected<Shape> Shape::make(const int64_t *Extents, size_t Rank) {
  if (Rank > MaxRank)
    return Status::error("rank " + std::to_string(Rank) +
                         " is above the maximum of " + std::to_string(MaxRank));
  Shape Sh;
  Sh.Rank = unsigned(Rank);
  for (size_t D = 0; D < Rank; ++D) {
    if (Extents[D] < 0)
      return Status::error("extent " + std::to_string(Extents[D]) +
                           " of dimension " + std::to_string(D) +
                           " is negative");
    Sh.Extents[D] = Extents[D];
  }
  // A zero extent empties the array whatever the others are, so overflow
  // only matters when there is none.
  for (size_t D = 0; D < Rank; ++D)
    if (Extents[D] == 0) {
      Sh.Size = 0;
      return Sh;
    }
  for (size_t D = 0; D < Rank; ++D)
    if (__builtin_mul_overflow(Sh.Size, Extents[D], &Sh.Size))
      return Status::error("shape " + Sh.str() +
                           " has more than 2^63-1 elements");
  return Sh;
}

bool Shape::contains(const Index &I) const {
  for (unsigned D = 0; D < Rank; ++D)
    if (I[D] < 0 || I[D] >= Extents[D])
      return false;
  return true;
}

int64_t Shape::toIndex(const Index &I) const {
  assert(contains(I) && "multi-index outside the shape");
  // Horner's rule, outermost first; contains() keeps every step below
  // size(), so no step overflows.
  int64_t Linear = 0;
  for (unsigned D = 0; D < Rank; ++D)
    Linear = Linear * Extents[D] + I[D];
  return Linear;
}

Shape::Index Shape::fromIndex(int64_t Linear) const {
  assert(Linear >= 0 && Linear < Size && "linear index outside the shape");
  Index I{};
  for (unsigned D = Rank; D-- > 0;) {
    I[D] = Linear % Extents[D];
    Linear /= Extents[D];
  }
  return I;
}

std::string Shape::str() const {
  std::string Out = "[";
  for (unsigned D = 0; D < Rank; ++D)
    Out += (D ? ", " : "") + std::to_string(Extents[D]);
  return Out + "]";
}

namespace llq::rt {
bool operator==(const Shape &A, const Shape &B) {
  if (A.Rank != B.Rank)
    return false;
  for (unsigned D = 0; D < A.Rank; ++D)
    if (A.Extents[D] != B.Extents[D])
      return false;
  return true;
}
} // namespace llq::rt

//===----------------------------------------------------------------------===//
// Array
//===----------------------------------------------------------------------===//

void Array::AlignedFree::operator()(std::byte *P) const {
  ::operator delete[](P, std::align_val_t(BufferAlignment));
}

Expected<uint64_t> llq::rt::paddedBufferBytes(const Shape &Sh,
                                              ScalarKind Kind) {
  std::optional<uint64_t> Bytes = bufferBytes(Sh.size(), Kind);
  if (!Bytes)
    return Status::error(tooLarge(Sh, Kind));
  return std::max<uint64_t>(BufferAlignment,
                            (*Bytes + BufferAlignment - 1) / BufferAlignment *
                                BufferAlignment);
}

Expected<Array> Array::create(const ElemType &Type, const Shape &Sh,
                              Fill F, BufferAllocator *From) {
  Array A(Type, Sh);
  A.Owning = true;
  for (ScalarKind Kind : Type.fields()) {
    Expected<uint64_t> Size = paddedBufferBytes(Sh, Kind);
    if (!Size)
      return Size.status();
    uint64_t Padded = *Size;
    uint64_t Bytes = uint64_t(Sh.size()) * byteSize(Kind);
    std::shared_ptr<std::byte> Buffer;
    if (From) {
      Buffer = From->allocate(size_t(Padded));
    } else if (auto *Raw = static_cast<std::byte *>(::operator new[](
                   size_t(Padded), std::align_val_t(BufferAlignment),
                   std::nothrow))) {
      Buffer = std::shared_ptr<std::byte>(Raw, AlignedFree());
    }
    if (!Buffer)
      return Status::error("out of memory allocating " +
                           std::to_string(Padded) +
                           " bytes for an array of shape " + Sh.str());
    std::byte *Raw = Buffer.get();
    if (F == Fill::Zero)
      std::memset(Raw, 0, size_t(Padded));
    else
      std::memset(Raw + Bytes, 0, size_t(Padded - Bytes));
    A.Storage.push_back(std::move(Buffer));
    A.Buffers.push_back(Raw);
  }
  return A;
}

Expected<Array> Array::wrap(const ElemType &Type, const Shape &Sh,
                            const std::vector<void *> &Buffers) {
  if (Buffers.size() != Type.numFields())
    return Status::error("element type " + Type.str() + " has " +
                         std::to_string(Type.numFields()) + " fields but " +
                         std::to_string(Buffers.size()) +
                         " buffers were given");
  for (size_t F = 0; F < Buffers.size(); ++F) {
    ScalarKind Kind = Type.field(F);
    if (!bufferBytes(Sh.size(), Kind))
      return Status::error(tooLarge(Sh, Kind));
    if (!Buffers[F] && Sh.size() != 0)
      return Status::error("buffer " + std::to_string(F) + " is null");
    if (reinterpret_cast<uintptr_t>(Buffers[F]) % byteSize(Kind) != 0)
      return Status::error("buffer " + std::to_string(F) +
                           " is not aligned to " +
                           std::to_string(byteSize(Kind)) + " bytes for its " +
                           kindName(Kind) + " elements");
  }
  Array A(Type, Sh);
  A.Buffers = Buffers;
  return A;
}

Expected<Array> Array::clone() const {
  Expected<Array> Copy = create(Type, Sh);
  if (!Copy)
    return Copy;
  for (size_t F = 0; F < Buffers.size(); ++F)
    if (size() != 0)
      std::memcpy(Copy->data(F), Buffers[F],
                  size_t(size()) * byteSize(Type.field(F)));
  return Copy;
}

Status Array::checkField(size_t Field, ScalarKind Want) const {
  if (Field >= numFields())
    return Status::error("field " + std::to_string(Field) +
                         " does not exist in an array of " + Type.str());
  if (Type.field(Field) != Want)
    return Status::error("field " + std::to_string(Field) + " holds " +
                         kindName(Type.field(Field)) + ", not " +
                         kindName(Want));
  return Status();
}

Status Array::checkLength(const Shape &Sh, size_t Field, size_t Length) {
  if (uint64_t(Length) == uint64_t(Sh.size()))
    return Status();
  return Status::error("field " + std::to_string(Field) + " has " +
                       std::to_string(Length) + " values but shape " +
                       Sh.str() + " has " + std::to_string(Sh.size()) +
                       " elements");
}
