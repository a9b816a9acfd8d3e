//===- KernelCache.h - Cache keys and the disk object cache -----*- C++ -*-===//
//
// Internal to the engine. A kernel's cache key is a 128-bit BLAKE3 hash of
// everything that decides the object code it compiles to: a format tag, the
// LLVM version, the target triple, the CPU and its feature string, the
// optimisation level, the fast-math switch, and the module's canonical text
// (the printed module, with its ModuleID and source_filename cleared so that
// two front ends naming one kernel differently share it). Hashing printed IR
// rather than llvm::StructuralHash costs a print per request but cannot call
// two different modules equal.
//
// The disk cache stores one file per key, <dir>/<key-hex>.o (another
// extension for a backend's own output, KernelFiles.h), holding a 48-byte
// header and the object:
//
//   offset size  field
//        0    8  magic "llqobj\0\0"
//        8    4  format version (1), little-endian like every field
//       12    4  header size (48)
//       16   16  the key
//       32    8  object size in bytes
//       40    8  xxh3_64 of the object bytes
//       48    -  the object
//
// A file is trusted only if all of these match and its size is exactly
// header + object; otherwise it is deleted and the kernel rebuilt. Entries
// are written to a unique temporary file in the same directory, synced,
// renamed over the entry, and the directory synced: a reader sees a whole
// old file or a whole new one, two processes writing one entry both succeed
// (the last rename wins; both wrote the same kernel), and after a crash or
// a power loss an entry is whole or absent.
//
// The directory is bounded (DiskLimits::MaxSize). An entry's modification
// time is its last use: a hit touches it. A writer rescans the directory
// whenever its own writes since its last scan reach 1/32 of the bound, or
// the last scan plus them pass 9/10 of it; a scan that finds more than 9/10
// of the bound removes the least recently used entries down to 3/4 of it.
// So several processes may write and clean one directory at once: removing
// a file another process is reading leaves that reader its open file, and a
// removal that loses a race to another's costs nothing. Temporary files
// younger than an hour belong to a writer at work and are left alone; older
// ones are a crashed writer's, and removed.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_KERNELCACHE_H
#define LLQUOTE_RUNTIME_KERNELCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/Support/Error.h"
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace llvm {
class MemoryBuffer;
class MemoryBufferRef;
class Module;
class raw_ostream;
} // namespace llvm

namespace llq::rt::detail {

/// Everything besides the IR that decides the code a kernel compiles to.
struct CodegenIdentity {
  std::string Triple;
  std::string CPU;
  std::string Features;
  unsigned OptLevel = 3;
  bool FastMath = false;
  /// The vector math library `afn` calls may use (VectorMath.h); empty
  /// for none, which leaves the key as it was before there was one.
  std::string VectorMath;
};

using KernelKey = std::array<uint8_t, 16>;

/// The key of M compiled as Id says. Clears M's module identifier and
/// source file name, which must not take part in the key.
KernelKey computeKernelKey(llvm::Module &M, const CodegenIdentity &Id);
std::string toHex(const KernelKey &Key);
/// Exactly 32 hex digits; anything else yields nothing.
std::optional<KernelKey> keyFromHex(llvm::StringRef Hex);

/// A disk entry holding Object under Key.
std::string encodeEntry(const KernelKey &Key, llvm::StringRef Object);
/// The object inside Entry (a view into it), or why the entry must not be
/// loaded: too short, bad magic or version, another key, a size that does
/// not match, a checksum that does not match.
llvm::Expected<llvm::StringRef> decodeEntry(llvm::StringRef Entry,
                                            const KernelKey &Key);

/// Root/<llvm-version>/<triple>/<cpu>, with every character outside
/// [A-Za-z0-9._-] of the last three replaced by '_'.
std::string cacheDirectory(llvm::StringRef Root, llvm::StringRef LLVMVersion,
                           llvm::StringRef Triple, llvm::StringRef CPU);

/// The one place the engine prints: whole lines, under a mutex so that
/// lines from concurrent compiles do not interleave.
class VerboseLog {
public:
  /// OS null means stderr.
  VerboseLog(bool Enabled, llvm::raw_ostream *OS);
  bool enabled() const { return Enabled; }
  /// Prints "llquote-jit: <Text>\n" if enabled.
  void line(const llvm::Twine &Text);

private:
  bool Enabled;
  llvm::raw_ostream *OS;
  std::mutex Mutex;
};

/// How a disk cache directory is kept.
struct DiskLimits {
  /// The bound on the bytes of the directory's files; 0: none.
  uint64_t MaxSize = 0;
  /// Whether entries are synced to the disk before they are renamed into
  /// place (and the directory after).
  bool Sync = true;
};

/// An llvm::ObjectCache over one directory. A module's identifier must be
/// its key in hex (toHex) when it is passed here.
class DiskObjectCache : public llvm::ObjectCache {
public:
  /// Entries are <Dir>/<key-hex><Extension>.
  DiskObjectCache(std::string Dir, VerboseLog &Log,
                  std::string Extension = ".o", DiskLimits Limits = {})
      : Dir(std::move(Dir)), Extension(std::move(Extension)), Log(Log),
        Limits(Limits) {}

  /// Stores Obj atomically. A failure to write (an unwritable or full disk,
  /// a file where the directory should be) costs only later compiles: it
  /// is logged once, and the cache stops writing, so the engine goes on
  /// with its memory cache alone. Entries already on disk are still read.
  void notifyObjectCompiled(const llvm::Module *M,
                            llvm::MemoryBufferRef Obj) override;
  /// A copy of the stored object, or null when there is no trustworthy
  /// entry; an untrustworthy one is deleted and counted in rejects().
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module *M) override;

  /// A copy of the bytes stored under \p Key, named by the key in hex, or
  /// null (an untrustworthy entry is deleted and counted in rejects()).
  /// What getObject() returns.
  std::unique_ptr<llvm::MemoryBuffer> load(const KernelKey &Key);
  /// Stores \p Bytes under \p Key, as notifyObjectCompiled() does: a
  /// failure is logged once and turns writes off.
  void save(const KernelKey &Key, llvm::StringRef Bytes);

  const std::string &directory() const { return Dir; }
  std::string entryPath(llvm::StringRef KeyHex) const;
  uint64_t rejects() const { return Rejects.load(); }
  /// Entries this cache removed to keep the directory under its bound.
  uint64_t evictions() const { return Evictions.load(); }
  const DiskLimits &limits() const { return Limits; }
  /// Scans the directory now and, if it holds more than 9/10 of the bound,
  /// removes the least recently used entries down to 3/4 of it; returns
  /// the bytes left. No bound: only scans.
  uint64_t trim();
  /// Whether a write has failed, so that no more are tried.
  bool writesOff() const { return WritesOff.load(); }

private:
  llvm::Error store(const KernelKey &Key, llvm::StringRef Object);
  /// Counts Bytes written and trims when the rule above says so.
  void noteWritten(uint64_t Bytes);
  uint64_t trimLocked();

  std::string Dir;
  std::string Extension;
  VerboseLog &Log;
  DiskLimits Limits;
  std::atomic<uint64_t> Rejects{0};
  std::atomic<uint64_t> Evictions{0};
  std::atomic<bool> WritesOff{false};
  /// The bytes the last scan found, and those written since.
  std::mutex TrimMutex;
  bool Scanned = false;
  uint64_t LastTotal = 0, SinceScan = 0;
};

} // namespace llq::rt::detail

#endif // LLQUOTE_RUNTIME_KERNELCACHE_H
