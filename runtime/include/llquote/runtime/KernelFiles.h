//===- KernelFiles.h - A backend's compiled kernels on disk -----*- C++ -*-===//
//
// The engine keeps the object files it compiles in a disk cache (Engine.h).
// A backend that compiles outside the engine, as the GPU backend compiles
// PTX, keeps its output beside them with a KernelFiles: under the same root,
// in <root>/<llvm-version>/<triple>/<cpu>/<key>.<extension>, with the same
// key (a BLAKE3 hash of the module's text and of everything that decides
// the code), the same entry header and checksum, and the same atomic
// replacement; runtime/KernelCache.h describes them. A damaged entry is
// deleted and the kernel compiled again, never loaded.
//
// The root and the switch are the engine's: EngineOptions::CacheDir and
// DiskCache, else LLQ_CACHE_DIR and LLQ_CACHE, else $XDG_CACHE_HOME/llquote
// or $HOME/.cache/llquote. Safe to use from several threads.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_KERNELFILES_H
#define LLQUOTE_RUNTIME_KERNELFILES_H

#include "llquote/runtime/Engine.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class Module;
}

namespace llq::rt {

class KernelFiles {
public:
  /// The cache of compiled kernels for \p Triple and \p CPU, each file named
  /// <key>.<Extension>; null where the disk cache is switched off or has no
  /// root. A malformed option or variable is an error.
  static llvm::Expected<std::unique_ptr<KernelFiles>>
  open(const EngineOptions &Options, llvm::StringRef Triple,
       llvm::StringRef CPU, llvm::StringRef Extension);
  ~KernelFiles();

  /// The key of \p M compiled for this cache's triple and CPU with
  /// \p Features, \p OptLevel and \p FastMath, as 32 hex digits. Clears
  /// M's module identifier and source file name, which take no part in it.
  std::string key(llvm::Module &M, llvm::StringRef Features,
                  unsigned OptLevel, bool FastMath) const;
  /// What is stored under \p Key, if a whole, unchanged entry is there.
  std::optional<std::string> load(llvm::StringRef Key);
  /// Stores \p Bytes under \p Key. A write that fails is told once (with
  /// LLQ_VERBOSE) and turns later writes off; loads go on.
  void store(llvm::StringRef Key, llvm::StringRef Bytes);

  std::string path(llvm::StringRef Key) const;
  const std::string &directory() const;
  /// Entries found damaged and deleted so far.
  uint64_t rejects() const;

private:
  struct Impl;
  explicit KernelFiles(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

} // namespace llq::rt

#endif // LLQUOTE_RUNTIME_KERNELFILES_H
