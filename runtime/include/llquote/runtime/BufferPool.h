//===- BufferPool.h - Freed array buffers kept for reuse --------*- C++ -*-===//
//
// A program that runs the same pipeline again and again allocates the same
// intermediate arrays every time. Large buffers come from mmap and go back
// with munmap, so each run pays for fresh pages: a page fault and zeroing per
// 4 KiB, which for a 64 MiB intermediate costs as much as the stencil that
// fills it. A BufferPool keeps the buffers its arrays free, up to a bound,
// and gives them to the next allocation of the same size.
//
// Contract:
//   - allocate(Bytes) returns BufferAlignment-aligned memory of exactly
//     that size with unspecified contents (a pooled buffer holds what its
//     last array left there), or null when out of memory.
//   - When the last owner of a buffer lets go, it goes back to the pool if
//     it is large (at least MinPooledBytes) and the pool then holds at most
//     MaxBytes; otherwise it is freed. A buffer that outlives its pool is
//     freed.
//   - Safe to use from several threads.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_BUFFERPOOL_H
#define LLQUOTE_RUNTIME_BUFFERPOOL_H

#include "llquote/runtime/Array.h"
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace llq::rt {

class BufferPool final : public BufferAllocator,
                         public std::enable_shared_from_this<BufferPool> {
public:
  /// Smaller buffers are left to the heap, whose own caches serve them.
  static constexpr size_t MinPooledBytes = size_t(64) << 10;

  /// A pool that keeps at most MaxBytes of freed buffers (0: keeps none).
  static std::shared_ptr<BufferPool> create(size_t MaxBytes);
  ~BufferPool() override;

  std::shared_ptr<std::byte> allocate(size_t Bytes) override;

  /// Bytes held for reuse now.
  size_t heldBytes() const;
  /// Allocations served from held buffers so far.
  size_t reuses() const;

private:
  explicit BufferPool(size_t MaxBytes) : MaxBytes(MaxBytes) {}
  /// Takes P (of Bytes) back, or frees it.
  void give(std::byte *P, size_t Bytes);
  static std::byte *newBuffer(size_t Bytes);
  static void freeBuffer(std::byte *P);

  const size_t MaxBytes;
  mutable std::mutex Lock;
  /// Held buffers by size.
  std::map<size_t, std::vector<std::byte *>> Free;
  size_t Held = 0;
  size_t Reuses = 0;
};

} // namespace llq::rt

#endif // LLQUOTE_RUNTIME_BUFFERPOOL_H
