//===- KernelCache.cpp - Kernel cache keys and the disk object cache ------===//
//
// Computes cache keys and reads and writes disk entries; KernelCache.h
// describes the key and the entry format. Nothing here trusts a file it has
// not checked in full: a reader copies the object out of a checked entry, so
// the bytes it hands to the linker are the bytes it checksummed.
//
//===----------------------------------------------------------------------===//

#include "KernelCache.h"
#include "ApproxMath.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace llq::rt::detail {

namespace {

constexpr char Magic[8] = {'l', 'l', 'q', 'o', 'b', 'j', '\0', '\0'};
constexpr uint32_t FormatVersion = 1;
constexpr size_t HeaderSize = 48;

/// Feeds everything written to it into a BLAKE3 hasher, so that a module is
/// hashed as it is printed, without holding its text.
class HashingStream : public raw_ostream {
public:
  explicit HashingStream(BLAKE3 &Hasher) : Hasher(Hasher) {}
  ~HashingStream() override { flush(); }

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Hasher.update(StringRef(Ptr, Size));
    Pos += Size;
  }
  uint64_t current_pos() const override { return Pos; }

  BLAKE3 &Hasher;
  uint64_t Pos = 0;
};

std::string sanitizeComponent(StringRef Name) {
  std::string Out = Name.empty() ? std::string("unknown") : Name.str();
  for (char &C : Out)
    if (!isAlnum(C) && C != '.' && C != '_' && C != '-')
      C = '_';
  // "." and ".." would climb the tree instead of naming a directory.
  if (Out == "." || Out == "..")
    Out = "_";
  return Out;
}

} // namespace

KernelKey computeKernelKey(Module &M, const CodegenIdentity &Id) {
  M.setModuleIdentifier("");
  M.setSourceFileName("");
  BLAKE3 Hasher;
  {
    HashingStream OS(Hasher);
    // One field per line, before the IR: no field holds a newline, so no
    // module text can pose as a different set of fields.
    OS << "llquote-kernel-key " << FormatVersion << "\n"
       << "llvm " << LLVM_VERSION_STRING << "\n"
       << "triple " << Id.Triple << "\n"
       << "cpu " << Id.CPU << "\n"
       << "features " << Id.Features << "\n"
       << "opt " << Id.OptLevel << "\n"
       << "fast-math " << (Id.FastMath ? 1 : 0) << "\n";
    if (!Id.VectorMath.empty())
      OS << "vector-math " << Id.VectorMath << "\n";
    OS << "approx-math " << ApproxMathRevision << "\n";
    OS << "codegen pic small\n\n";
    M.print(OS, nullptr);
  }
  return Hasher.final<16>();
}

std::string toHex(const KernelKey &Key) {
  return llvm::toHex(ArrayRef<uint8_t>(Key.data(), Key.size()),
                     /*LowerCase=*/true);
}

std::optional<KernelKey> keyFromHex(StringRef Hex) {
  std::string Bytes;
  KernelKey Key;
  if (Hex.size() != 2 * Key.size() || !tryGetFromHex(Hex, Bytes))
    return std::nullopt;
  std::copy(Bytes.begin(), Bytes.end(), Key.begin());
  return Key;
}

std::string encodeEntry(const KernelKey &Key, StringRef Object) {
  std::string Out;
  raw_string_ostream OS(Out);
  support::endian::Writer W(OS, llvm::endianness::little);
  OS.write(Magic, sizeof(Magic));
  W.write<uint32_t>(FormatVersion);
  W.write<uint32_t>(HeaderSize);
  OS.write(reinterpret_cast<const char *>(Key.data()), Key.size());
  W.write<uint64_t>(Object.size());
  W.write<uint64_t>(xxh3_64bits(Object));
  OS << Object;
  OS.flush();
  assert(Out.size() == HeaderSize + Object.size() && "header layout drifted");
  return Out;
}

llvm::Expected<StringRef> decodeEntry(StringRef Entry, const KernelKey &Key) {
  auto Reject = [](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(), Why);
  };
  if (Entry.size() < HeaderSize)
    return Reject("shorter than a header (" + Twine(Entry.size()) + " bytes)");
  if (Entry.substr(0, sizeof(Magic)) != StringRef(Magic, sizeof(Magic)))
    return Reject("bad magic");
  const char *P = Entry.data();
  using support::endian::read32le;
  using support::endian::read64le;
  if (read32le(P + 8) != FormatVersion || read32le(P + 12) != HeaderSize)
    return Reject("format version " + Twine(read32le(P + 8)) + ", expected " +
                  Twine(FormatVersion));
  if (std::memcmp(P + 16, Key.data(), Key.size()) != 0)
    return Reject("written for another key");
  uint64_t Size = read64le(P + 32);
  if (Size != Entry.size() - HeaderSize)
    return Reject("header says " + Twine(Size) + " object bytes, file has " +
                  Twine(Entry.size() - HeaderSize));
  StringRef Object = Entry.substr(HeaderSize);
  if (xxh3_64bits(Object) != read64le(P + 40))
    return Reject("checksum mismatch");
  return Object;
}

std::string cacheDirectory(StringRef Root, StringRef LLVMVersion,
                           StringRef Triple, StringRef CPU) {
  SmallString<256> Dir(Root);
  sys::path::append(Dir, sanitizeComponent(LLVMVersion),
                    sanitizeComponent(Triple), sanitizeComponent(CPU));
  return std::string(Dir);
}

VerboseLog::VerboseLog(bool Enabled, raw_ostream *OS)
    : Enabled(Enabled), OS(OS ? OS : &errs()) {}

void VerboseLog::line(const Twine &Text) {
  if (!Enabled)
    return;
  // Format first, write once: the stream may be shared with the program.
  std::string Line = ("llquote-jit: " + Text + "\n").str();
  std::lock_guard<std::mutex> Lock(Mutex);
  *OS << Line;
  OS->flush();
}

std::string DiskObjectCache::entryPath(StringRef KeyHex) const {
  SmallString<256> Path(Dir);
  sys::path::append(Path, KeyHex + Extension);
  return std::string(Path);
}

std::unique_ptr<MemoryBuffer> DiskObjectCache::load(const KernelKey &Key) {
  std::string Hex = toHex(Key);
  std::string Path = entryPath(Hex);
  // IsVolatile: read, do not map. A mapping would see another process's
  // writes to the file after the checksum was taken.
  ErrorOr<std::unique_ptr<MemoryBuffer>> File =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false,
                            /*IsVolatile=*/true);
  if (!File)
    return nullptr; // No entry yet (or unreadable): compile.
  llvm::Expected<StringRef> Object = decodeEntry((*File)->getBuffer(), Key);
  if (!Object) {
    ++Rejects;
    Log.line("disk cache entry " + Path + " rejected (" +
             toString(Object.takeError()) + "); deleting and rebuilding");
    // Another process may have just replaced the bad entry with a good one;
    // deleting that costs one compile later, never a wrong load.
    sys::fs::remove(Path);
    return nullptr;
  }
  // A hit is a use: the entry's time is its place in the eviction order.
  // It may have been removed since it was read; then there is nothing to
  // touch.
  ::utimensat(AT_FDCWD, Path.c_str(), nullptr, 0);
  // A copy of the bytes that were checksummed, named by the key.
  return MemoryBuffer::getMemBufferCopy(*Object, Hex);
}

std::unique_ptr<MemoryBuffer> DiskObjectCache::getObject(const Module *M) {
  std::optional<KernelKey> Key = keyFromHex(M->getModuleIdentifier());
  assert(Key && "the engine names modules after their key");
  return load(*Key);
}

void DiskObjectCache::notifyObjectCompiled(const Module *M,
                                           MemoryBufferRef Obj) {
  std::optional<KernelKey> Key = keyFromHex(M->getModuleIdentifier());
  assert(Key && "the engine names modules after their key");
  save(*Key, Obj.getBuffer());
}

void DiskObjectCache::save(const KernelKey &Key, StringRef Bytes) {
  if (WritesOff.load())
    return;
  Error Err = store(Key, Bytes);
  if (!Err) {
    noteWritten(HeaderSize + Bytes.size());
    return;
  }
  // Only the first failure is told: the ones after it are not tried.
  if (!WritesOff.exchange(true))
    Log.line("disk cache write to " + Dir + " failed: " +
             toString(std::move(Err)) +
             "; caching kernels in memory only from now on");
  else
    consumeError(std::move(Err));
}

Error DiskObjectCache::store(const KernelKey &Key, StringRef Object) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "cannot create directory");
  std::string Hex = toHex(Key);
  // The temporary lives in the entry's directory so that the rename below
  // stays within one file system, where it is atomic.
  SmallString<256> Model(Dir);
  sys::path::append(Model, Hex + "-%%%%%%%%.tmp");
  llvm::Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(Model);
  if (!Temp)
    return Temp.takeError();
  std::string Entry = encodeEntry(Key, Object);
  raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
  OS << Entry;
  OS.flush();
  if (OS.has_error()) {
    std::error_code EC = OS.error();
    OS.clear_error();
    return joinErrors(createStringError(EC, "cannot write " + Temp->TmpName),
                      Temp->discard());
  }
  // The bytes reach the disk before the name does: after a crash the entry
  // is the whole new file or not there, never a name over missing data.
  if (Limits.Sync && ::fsync(Temp->FD) != 0) {
    std::error_code EC(errno, std::generic_category());
    return joinErrors(createStringError(EC, "cannot sync " + Temp->TmpName),
                      Temp->discard());
  }
  if (Error Err = Temp->keep(entryPath(Hex)))
    return Err;
  if (Limits.Sync) {
    // And the rename itself: the directory's entry.
    int DirFD = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (DirFD >= 0) {
      ::fsync(DirFD);
      ::close(DirFD);
    }
  }
  return Error::success();
}

void DiskObjectCache::noteWritten(uint64_t Bytes) {
  if (!Limits.MaxSize)
    return;
  std::lock_guard<std::mutex> Lock(TrimMutex);
  SinceScan += Bytes;
  if (Scanned && SinceScan < Limits.MaxSize / 32 &&
      LastTotal + SinceScan <= Limits.MaxSize / 10 * 9)
    return;
  trimLocked();
}

uint64_t DiskObjectCache::trim() {
  std::lock_guard<std::mutex> Lock(TrimMutex);
  return trimLocked();
}

uint64_t DiskObjectCache::trimLocked() {
  struct File {
    std::chrono::system_clock::time_point Used;
    uint64_t Size;
    std::string Path;
  };
  std::vector<File> Entries;
  uint64_t Total = 0;
  auto Now = std::chrono::system_clock::now();
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::ErrorOr<sys::fs::basic_file_status> St = It->status();
    if (!St || St->type() != sys::fs::file_type::regular_file)
      continue;
    StringRef Name = sys::path::filename(It->path());
    auto Modified = St->getLastModificationTime();
    if (Name.ends_with(".lock"))
      continue; // A compile at work (Engine.cpp's CompileLock): no entry.
    if (Name.ends_with(".tmp")) {
      // A writer at work, or one that died an hour ago or more.
      if (Now - Modified > std::chrono::hours(1) &&
          !sys::fs::remove(It->path()))
        continue;
      Total += St->getSize();
      continue;
    }
    Total += St->getSize();
    Entries.push_back({Modified, St->getSize(), It->path()});
  }
  Scanned = true;
  SinceScan = 0;
  LastTotal = Total;
  if (!Limits.MaxSize || Total <= Limits.MaxSize / 10 * 9)
    return Total;
  std::sort(Entries.begin(), Entries.end(),
            [](const File &A, const File &B) { return A.Used < B.Used; });
  uint64_t Target = Limits.MaxSize / 4 * 3, Removed = 0, Count = 0;
  for (const File &F : Entries) {
    if (Total <= Target)
      break;
    // Gone already (another process cleaned it) counts as removed.
    std::error_code Gone = sys::fs::remove(F.Path);
    if (Gone && Gone != std::errc::no_such_file_or_directory)
      continue;
    Total -= F.Size;
    Removed += F.Size;
    ++Count;
  }
  Evictions += Count;
  LastTotal = Total;
  Log.line("disk cache " + Dir + ": removed " + Twine(Count) +
           " least recently used entries (" + Twine(Removed) +
           " bytes) to stay under " + Twine(Limits.MaxSize) + " bytes");
  return Total;
}

} // namespace llq::rt::detail
