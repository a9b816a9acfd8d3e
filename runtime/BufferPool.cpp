//===- BufferPool.cpp - Freed array buffers kept for reuse ----------------===//
//
// See BufferPool.h. A handed-out buffer's deleter holds a weak reference to
// the pool: the pool may go first, and then the buffer is simply freed.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/BufferPool.h"
#include <iterator>
#include <new>

using namespace llq::rt;

std::shared_ptr<BufferPool> BufferPool::create(size_t MaxBytes) {
  return std::shared_ptr<BufferPool>(new BufferPool(MaxBytes));
}

BufferPool::~BufferPool() {
  for (auto &[Bytes, Buffers] : Free)
    for (std::byte *P : Buffers)
      freeBuffer(P);
}

std::byte *BufferPool::newBuffer(size_t Bytes) {
  return static_cast<std::byte *>(::operator new[](
      Bytes, std::align_val_t(BufferAlignment), std::nothrow));
}

void BufferPool::freeBuffer(std::byte *P) {
  ::operator delete[](P, std::align_val_t(BufferAlignment));
}

std::shared_ptr<std::byte> BufferPool::allocate(size_t Bytes) {
  std::byte *P = nullptr;
  if (Bytes >= MinPooledBytes) {
    std::lock_guard<std::mutex> G(Lock);
    auto It = Free.find(Bytes);
    if (It != Free.end() && !It->second.empty()) {
      P = It->second.back();
      It->second.pop_back();
      Held -= Bytes;
      ++Reuses;
    }
  }
  if (!P)
    P = newBuffer(Bytes);
  if (!P)
    return nullptr;
  std::weak_ptr<BufferPool> Pool = weak_from_this();
  return std::shared_ptr<std::byte>(P, [Pool, Bytes](std::byte *Q) {
    if (std::shared_ptr<BufferPool> Live = Pool.lock())
      Live->give(Q, Bytes);
    else
      freeBuffer(Q);
  });
}

void BufferPool::give(std::byte *P, size_t Bytes) {
  if (Bytes >= MinPooledBytes && Bytes <= MaxBytes) {
    std::vector<std::byte *> Dropped;
    {
      std::lock_guard<std::mutex> G(Lock);
      // The buffer just freed is the likeliest to be asked for again: make
      // room for it by dropping buffers of other sizes.
      for (auto It = Free.begin(); Held + Bytes > MaxBytes && It != Free.end();) {
        while (!It->second.empty() && Held + Bytes > MaxBytes) {
          Dropped.push_back(It->second.back());
          It->second.pop_back();
          Held -= It->first;
        }
        It = It->second.empty() ? Free.erase(It) : std::next(It);
      }
      Free[Bytes].push_back(P);
      Held += Bytes;
    }
    for (std::byte *D : Dropped)
      freeBuffer(D);
    return;
  }
  freeBuffer(P);
}

size_t BufferPool::heldBytes() const {
  std::lock_guard<std::mutex> G(Lock);
  return Held;
}

size_t BufferPool::reuses() const {
  std::lock_guard<std::mutex> G(Lock);
  return Reuses;
}
