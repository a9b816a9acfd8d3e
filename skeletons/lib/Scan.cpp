//===- Scan.cpp - Scans: scanl, scanl1, scanl', scanr, scanr1, scanr' -----===//
//
// A parallel scan of a vector in three phases, over chunks that depend on
// the length and the thread count only:
//   sums:  each chunk is folded on its own;
//   carry: one thread scans the chunk sums from the seed, giving each chunk
//          the value of everything before it (after it, for right scans);
//   final: each chunk is scanned again from its carry, writing the output.
// Only associativity is used. A right scan walks the chunks and their
// elements downwards and combines as F(x, acc).
//
// On the CPU the three phases are one, `stream`, over chunks small enough
// to stay in a core's level-2 cache: each thread takes the next chunk by
// ticket (in scan order), folds it, waits until the chunk before it has
// published the value of everything up to its end, publishes its own, and
// scans the chunk again, now from cache. The input is read from memory
// once instead of twice. Both passes work on the chunk's four quarters at
// once (foldRange, scanChunk), so that four chains of calls are in flight.
// A chunk waits only on one ticketed before it, which a running thread
// holds, so the waits cannot deadlock. The GPU keeps the three phases: its
// blocks are not known to run in ticket order as a whole grid.
//
// Code[0] is the variant: 0 scanl/scanr (n+1 outputs, the seed at the
// start / end), 1 scanl1/scanr1 (n outputs), 2 scanl'/scanr' (n exclusive
// prefixes and the total).
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

/// The bytes of a stream chunk, at 8 per field of an element.
constexpr int64_t StreamChunkBytes = 128 << 10;

const Template ScanLeft = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.sums(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  for i64 %c in %lo to %hi {
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %lastc = icmp slt i64 %last0, %n
    %last = select i1 %lastc, i64 %last0, i64 %n
    %j = i64 %first
    $instrs:elem
    %acc = $type:t %x
    %next = add i64 %first, 1
    for i64 %j in %next to %last {
      $instrs:elem
      %acc = call $type:t $gid:f($type:t %acc, $type:t %x)
    }
    %sp = getelementptr $type:t, ptr %sums, i64 %c
    store $type:t %acc, ptr %sp
  }
  ret void
}

define internal void @body.carry(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  $instrs:carryinit
  for i64 %c in %c0 to %nchunks {
    %cp = getelementptr $type:t, ptr %carries, i64 %c
    store $type:t %carry, ptr %cp
    %sp = getelementptr $type:t, ptr %sums, i64 %c
    %s = load $type:t, ptr %sp
    %carry = call $type:t $gid:f($type:t %carry, $type:t %s)
  }
  $instrs:carrydone
  ret void
}

define internal void @body.final(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  for i64 %c in %lo to %hi {
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %lastc = icmp slt i64 %last0, %n
    %last = select i1 %lastc, i64 %last0, i64 %n
    %cp = getelementptr $type:t, ptr %carries, i64 %c
    $instrs:finalinit
    for i64 %j in %from to %last {
      $instrs:step
    }
  }
  ret void
}

$defs:entries
)");

const Template ScanRight = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.sums(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  for i64 %c in %lo to %hi {
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %lastc = icmp slt i64 %last0, %n
    %last = select i1 %lastc, i64 %last0, i64 %n
    %j = sub i64 %last, 1
    $instrs:elem
    %acc = $type:t %x
    %top = sub i64 %last, 2
    %below = sub i64 %first, 1
    for i64 %j in %top downto %below {
      $instrs:elem
      %acc = call $type:t $gid:f($type:t %x, $type:t %acc)
    }
    %sp = getelementptr $type:t, ptr %sums, i64 %c
    store $type:t %acc, ptr %sp
  }
  ret void
}

define internal void @body.carry(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  $instrs:carryinit
  for i64 %c in %c0 downto -1 {
    %cp = getelementptr $type:t, ptr %carries, i64 %c
    store $type:t %carry, ptr %cp
    %sp = getelementptr $type:t, ptr %sums, i64 %c
    %s = load $type:t, ptr %sp
    %carry = call $type:t $gid:f($type:t %s, $type:t %carry)
  }
  $instrs:carrydone
  ret void
}

define internal void @body.final(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  for i64 %c in %lo to %hi {
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %lastc = icmp slt i64 %last0, %n
    %last = select i1 %lastc, i64 %last0, i64 %n
    %below = sub i64 %first, 1
    %cp = getelementptr $type:t, ptr %carries, i64 %c
    $instrs:finalinit
    for i64 %j in %from downto %below {
      $instrs:step
    }
  }
  ret void
}

$defs:entries
)");

/// The CPU's one-phase scan: $instrs:pick names the chunk %c of ticket %t
/// (in scan order: downwards for right scans), which is folded, linked to
/// the chunk before it ($instrs:link: wait, publish) and scanned again.
/// @body.empty writes what a scan of no elements has (the seed, the
/// total), where no chunk would.
const Template StreamScan = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.stream(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  %more = i1 true
  while %more {
    %t = atomicrmw add ptr %ticket, i64 1 monotonic
    %more = icmp slt i64 %t, %nchunks
    if %more {
      $instrs:pick
      %first = mul i64 %c, %chunk
      %last0 = add i64 %first, %chunk
      %lastc = icmp slt i64 %last0, %n
      %last = select i1 %lastc, i64 %last0, i64 %n
      %below = sub i64 %first, 1
      $instrs:fold
      $instrs:link
      %cp = getelementptr $type:t, ptr %carries, i64 %c
      $instrs:finalinit
      $instrs:scan
    }
  }
  ret void
}

define internal void @body.empty(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  $instrs:empty
  ret void
}

$defs:entries
)");

// scanlSeg / scanrSeg: one segment per index. A segment of length l
// starting at o is written at o + s .. o + s + l (its seed included).
const Template ScanSegSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.seg(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  for i64 %s in %lo to %hi {
    %op = getelementptr i64, ptr %offs, i64 %s
    %first = load i64, ptr %op
    %lp = getelementptr i64, ptr %lens, i64 %s
    %len = load i64, ptr %lp
    %last = add i64 %first, %len
    %base = add i64 %first, %s
    $instrs:body
  }
  ret void
}

$defs:entries
)");

class ScanSeg final : public Skeleton {
public:
  explicit ScanSeg(bool Left) : Left(Left) {}
  const char *name() const override { return Left ? "scanlSeg" : "scanrSeg"; }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    std::string T = irType(N.Type), F = G.fn(N.Fns[0]);
    std::string Setup = fmt::format("  %offs = ptr {}\n  %lens = ptr {}\n",
                                    G.hostPtr(0), G.hostPtr(1));
    std::string Body, Elem;
    Elem += fmt::format("  %x = {} {}\n", T, G.elemMulti(A, {"%j"}, Elem));
    std::vector<std::string> Out = G.outBuffers(0, N.Type);
    std::string Seed = G.constant(N, 0, Body);
    Body += fmt::format("  %acc = {} {}\n", T, Seed);
    std::string Step;
    if (Left) {
      G.store(N.Type, Out, "%acc", "%base", Body);
      Step = Elem +
             fmt::format("  %acc = call {0} {1}({0} %acc, {0} %x)\n", T, F) +
             "  %d = sub i64 %j, %first\n  %o1 = add i64 %base, %d\n"
             "  %o = add i64 %o1, 1\n";
      G.store(N.Type, Out, "%acc", "%o", Step);
      Body += "  for i64 %j in %first to %last {\n" + Step + "  }\n";
    } else {
      Body += "  %top = add i64 %base, %len\n";
      G.store(N.Type, Out, "%acc", "%top", Body);
      Step = Elem +
             fmt::format("  %acc = call {0} {1}({0} %x, {0} %acc)\n", T, F) +
             "  %d = sub i64 %j, %first\n  %o = add i64 %base, %d\n";
      G.store(N.Type, Out, "%acc", "%o", Step);
      Body += "  %jt = sub i64 %last, 1\n  %jb = sub i64 %first, 1\n"
              "  for i64 %j in %jt downto %jb {\n" +
              Step + "  }\n";
    }
    return G.instantiate(ScanSegSkeleton, {{"setup", Setup}, {"body", Body}},
                         {"seg"}, Ctx);
  }

  llvm::Error launch(Launch &L) const override {
    const Node &N = L.root(), &A = *N.Kids[0], &S = *N.Kids[1];
    int64_t *Offs, *Lens;
    if (llvm::Error E = segmentsOf(L, S, A.Sh.size(), true, Offs, Lens))
      return E;
    if (llvm::Error E = L.output(N.Type, N.Sh))
      return E;
    L.Host = {reinterpret_cast<uintptr_t>(Offs),
              reinterpret_cast<uintptr_t>(Lens)};
    return L.run(0, 0, S.Sh.size(), 16);
  }

private:
  bool Left;
};

/// Code scanning the chunk again, after \p FinalInit has set %acc and
/// %from for its first element in scan order: as four quarters at once when
/// the fold made them, each from its own carry (the chunk's carry, %cin,
/// combined with the folds of the quarters before it in scan order), else
/// as one chain. \p Step scans element %j into %acc; \p Edge1 says that
/// the chunk at the scan's start of a scanl1/scanr1 (%inner false) starts
/// from its own first element, not from a carry.
std::string scanChunk(bool Left, bool Edge1, const std::string &Step,
                      const std::string &T, const std::string &F) {
  auto Call = [&](const std::string &Dest, const std::string &A,
                  const std::string &B) {
    return fmt::format("  {0} = call {1} {2}({1} {3}, {1} {4})\n", Dest, T, F,
                       A, B);
  };
  // Quarters in scan order, with their folds: the first starts at the
  // chunk's carry.
  const char *Folds[] = {"%a0", "%a1", "%a2", "%a3"};
  std::vector<int> Order = Left ? std::vector<int>{0, 1, 2, 3}
                                : std::vector<int>{3, 2, 1, 0};
  std::string Code = "  if %multi {\n";
  // Carries into the quarters after the first.
  for (int K = 1; K < 4; ++K) {
    std::string Dest = fmt::format("%k{}", Order[K]);
    const char *Before = Folds[Order[K - 1]];
    std::string Prev = K == 1 ? "%cin" : fmt::format("%k{}", Order[K - 1]);
    std::string Combined = fmt::format("%kc{}", Order[K]);
    Code += Left ? Call(Combined, Prev, Before) : Call(Combined, Before, Prev);
    if (K == 1 && Edge1)
      Code += fmt::format("  {0} = {1} {2}\n  if %inner {{\n  {0} = {1} {3}\n"
                          "  }}\n",
                          Dest, T, Before, Combined);
    else
      Code += fmt::format("  {} = {} {}\n", Dest, T, Combined);
  }
  Code += fmt::format("  %k{} = {} %acc\n", Order[0], T);
  // Element %i of each quarter, in scan order within it. The first
  // quarter's first element may have been written by FinalInit.
  auto Quarter = [&](int K) {
    std::string Start = K == 0 ? "%first" : fmt::format("%q{}", K);
    std::string End = K == 3 ? "%last" : fmt::format("%q{}", K + 1);
    std::string C;
    if (Left)
      C += fmt::format("  %j = add i64 {}, %i\n", Start);
    else
      C += fmt::format("  %j = sub i64 {}, 1\n  %j = sub i64 %j, %i\n", End);
    std::string Body = fmt::format("  %acc = {} %k{}\n", T, K) + Step +
                       fmt::format("  %k{} = {} %acc\n", K, T);
    if (K == Order[0])
      C += fmt::format("  %ok = icmp {} i64 %j, %from\n  if %ok {{\n{}  }}\n",
                       Left ? "sge" : "sle", Body);
    else
      C += Body;
    return C;
  };
  Code += "  for i64 %i in 0 to %q {\n";
  for (int K : Order)
    Code += Quarter(K);
  Code += "  }\n";
  // The last quarter's elements beyond the others' length.
  Code += fmt::format("  %acc = {} %k3\n", T);
  if (Left)
    Code += "  %tail = add i64 %q3, %q\n"
            "  for i64 %j in %tail to %last {\n" + Step + "  }\n";
  else
    Code += "  %rest = sub i64 %last, %q\n  %rest = sub i64 %rest, 1\n"
            "  %qb = sub i64 %q3, 1\n"
            "  for i64 %j in %rest downto %qb {\n" + Step + "  }\n";
  Code += "  } else {\n";
  Code += Left ? "  for i64 %j in %from to %last {\n"
               : "  for i64 %j in %from downto %below {\n";
  return Code + Step + "  }\n  }\n";
}

class Scan final : public Skeleton {
public:
  explicit Scan(bool Left) : Left(Left) {}
  const char *name() const override { return Left ? "scanl" : "scanr"; }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    int64_t Variant = N.Code[0];
    std::string T = irType(N.Type), F = G.fn(N.Fns[0]);
    std::string Setup = fmt::format(
        "  %n = i64 {}\n  %nchunks = i64 {}\n  %chunk = i64 {}\n"
        "  %sums = ptr {}\n  %carries = ptr {}\n",
        G.hostInt(0), G.hostInt(1), G.hostInt(2), G.hostPtr(3), G.hostPtr(4));
    std::string Elem;
    Elem += fmt::format("  %x = {} {}\n", T, G.elemMulti(A, {"%j"}, Elem));
    std::vector<std::string> Out = G.outBuffers(0, N.Type);
    // Dest = F(Acc, X) for left scans, F(X, Acc) for right ones: Acc is
    // what comes first in scan order.
    auto Combine = [&](const char *Acc, const char *X,
                       const char *Dest = "%acc") {
      return fmt::format("  {0} = call {1} {2}({1} {3}, {1} {4})\n", Dest, T,
                         F, Left ? Acc : X, Left ? X : Acc);
    };
    auto Store = [&](const std::string &At) {
      std::string S;
      G.store(N.Type, Out, "%acc", At, S);
      return S;
    };
    std::string CarryInit, CarryDone, FinalInit, Step;
    // The seed's operand, and the code that makes it (scans with a seed).
    std::string Seed, SeedCode;
    // The chunk the one-element scans start from, and where.
    std::string Edge = Left ? "0" : "%lastchunk";
    if (Variant == 1) {
      CarryInit = fmt::format(
          "  %lastchunk = sub i64 %nchunks, 1\n"
          "  %sp0 = getelementptr {0}, ptr %sums, i64 {1}\n"
          "  %carry = load {0}, ptr %sp0\n  %c0 = {2}\n",
          T, Edge, Left ? "i64 1" : "sub i64 %nchunks, 2");
      FinalInit = fmt::format(
          "  %lastchunk = sub i64 %nchunks, 1\n"
          "  %edge = icmp eq i64 %c, {0}\n"
          "  if %edge {{\n    %j = {1}\n{2}    %acc = {3} %x\n{4}"
          "    %from = {5}\n  }} else {{\n"
          "    %acc = load {3}, ptr %cp\n    %from = {6}\n  }}\n",
          Edge, Left ? "i64 %first" : "sub i64 %last, 1", Elem, T,
          Store("%j"), Left ? "add i64 %first, 1" : "sub i64 %last, 2",
          Left ? "i64 %first" : "sub i64 %last, 1");
      Step = Elem + Combine("%acc", "%x") + Store("%j");
    } else {
      Seed = G.constant(N, 0, SeedCode);
      CarryInit = SeedCode + fmt::format("  %carry = {} {}\n  %c0 = {}\n", T, Seed,
                               Left ? "i64 0" : "sub i64 %nchunks, 1");
      FinalInit = fmt::format("  %acc = load {}, ptr %cp\n  %from = {}\n", T,
                              Left ? "i64 %first" : "sub i64 %last, 1");
      if (Variant == 0) {
        // scanl writes the seed at 0 and element j at j+1; scanr the seed
        // at n and element j at j.
        std::string SeedStore;
        G.store(N.Type, Out, Seed, Left ? "0" : "%n", SeedStore);
        CarryDone = SeedStore;
        Step = Elem + Combine("%acc", "%x");
        if (Left)
          Step += "  %j1 = add i64 %j, 1\n" + Store("%j1");
        else
          Step += Store("%j");
      } else {
        std::string TotalStore;
        G.store(N.Type, G.outBuffers(1, N.Type), "%carry", "0", TotalStore);
        CarryDone = TotalStore;
        Step = Store("%j") + Elem + Combine("%acc", "%x");
      }
    }
    if (G.backend().piecesInOrder()) {
      std::string Link = SeedCode, Empty;
      if (Variant != 1)
        Empty = SeedCode + fmt::format("  %carry = {} {}\n", T, Seed) +
                CarryDone;
      Link += fmt::format(
          "  %endchunk = sub i64 %nchunks, 1\n"
          "  %edge = icmp eq i64 %c, {0}\n"
          "  %carry = {1} {2}\n"
          "  %inner = xor i1 %edge, true\n"
          "  if %inner {{\n"
          "    %prev = {3} i64 %c, 1\n"
          "    %fp = getelementptr i32, ptr %flags, i64 %prev\n"
          "    %ready = load atomic i32, ptr %fp acquire, align 4\n"
          "    %wait = icmp eq i32 %ready, 0\n"
          "    while %wait {{\n"
          "      %ready = load atomic i32, ptr %fp acquire, align 4\n"
          "      %wait = icmp eq i32 %ready, 0\n"
          "    }}\n"
          "    %pp = getelementptr {1}, ptr %sums, i64 %prev\n"
          "    %carry = load {1}, ptr %pp\n"
          "  }}\n"
          "  %cq = getelementptr {1}, ptr %carries, i64 %c\n"
          "  store {1} %carry, ptr %cq\n"
          "  %cin = {1} %carry\n",
          Left ? "0" : "%endchunk", T, Variant == 1 ? "%acc" : Seed,
          Left ? "sub" : "add");
      if (Variant == 1)
        Link += fmt::format("  %incl = {} %acc\n  if %inner {{\n{}  }}\n", T,
                            Combine("%carry", "%acc", "%incl"));
      else
        Link += Combine("%carry", "%acc", "%incl");
      Link += fmt::format(
          "  %ip = getelementptr {0}, ptr %sums, i64 %c\n"
          "  store {0} %incl, ptr %ip\n"
          "  %fc = getelementptr i32, ptr %flags, i64 %c\n"
          "  store atomic i32 1, ptr %fc release, align 4\n"
          "  %done = icmp eq i64 %c, {1}\n"
          "  if %done {{\n  %carry = {0} %incl\n{2}  }}\n",
          T, Left ? "%endchunk" : "0", CarryDone);
      Setup += fmt::format("  %flags = ptr {}\n  %ticket = ptr {}\n",
                           G.hostPtr(5), G.hostPtr(6));
      return G.instantiate(StreamScan,
                           {{"setup", Setup},
                            {"pick", Left ? "  %c = i64 %t\n"
                                          : "  %top = sub i64 %nchunks, 1\n"
                                            "  %c = sub i64 %top, %t\n"},
                            {"elem", Elem},
                            {"fold", foldRange(Elem, T, F, "%first", "%last",
                                               "%acc")},
                            {"link", Link},
                            {"empty", Empty},
                            {"finalinit", FinalInit},
                            {"scan", scanChunk(Left, Variant == 1, Step, T, F)},
                            {"t", Binding::source(T)},
                            {"f", F.substr(1)}},
                           {"stream", "empty"}, Ctx);
    }
    return G.instantiate(Left ? ScanLeft : ScanRight,
                         {{"setup", Setup},
                          {"elem", Elem},
                          {"carryinit", CarryInit},
                          {"carrydone", CarryDone},
                          {"finalinit", FinalInit},
                          {"step", Step},
                          {"t", Binding::source(T)},
                          {"f", F.substr(1)}},
                         {"sums", "carry", "final"}, Ctx);
  }

  llvm::Error launch(Launch &L) const override {
    const Node &N = L.root();
    int64_t Len = N.Kids[0]->Sh.size();
    for (size_t I = 0; I < N.OutTypes.size(); ++I)
      if (llvm::Error E = L.output(N.OutTypes[I], N.OutShapes[I]))
        return E;
    unsigned T = L.backend().parallelism();
    bool Stream = L.backend().piecesInOrder();
    int64_t Chunk, Chunks;
    if (Stream) {
      // Chunks a level-2 cache holds with room to spare, however many
      // threads: each is read from memory once and scanned again from it.
      Chunk = std::max<int64_t>(
          1, StreamChunkBytes / int64_t(N.Type.numFields() * 8));
      Chunks = (Len + Chunk - 1) / Chunk;
    } else {
      Chunks = T == 1 ? (Len ? 1 : 0) : chunksFor(Len, T, 1 << 14);
      Chunk = Chunks ? (Len + Chunks - 1) / Chunks : 0;
      if (Chunks)
        Chunks = (Len + Chunk - 1) / Chunk;
    }
    size_t PerChunk = size_t(std::max<int64_t>(Chunks, 1));
    size_t Bytes = PerChunk * N.Type.numFields() * 8;
    L.Host = {uint64_t(Len), uint64_t(Chunks), uint64_t(Chunk),
              reinterpret_cast<uintptr_t>(L.scratch(Bytes)),
              reinterpret_cast<uintptr_t>(L.scratch(Bytes))};
    if (Stream) {
      // The chunks' published flags, and the ticket counter.
      L.Host.push_back(reinterpret_cast<uintptr_t>(L.scratch(PerChunk * 4)));
      L.Host.push_back(reinterpret_cast<uintptr_t>(L.scratch(8)));
      if (!Chunks)
        return L.run(1, 0, 1, 1);
      return L.run(0, 0, std::min<int64_t>(T, Chunks), 1);
    }
    if (llvm::Error E = L.run(0, 0, Chunks, 1))
      return E;
    if (llvm::Error E = L.run(1, 0, 1, 1))
      return E;
    return L.run(2, 0, Chunks, 1);
  }

private:
  bool Left;
};

const Scan LeftSkel(true), RightSkel(false);
const ScanSeg LeftSegSkel(true), RightSegSkel(false);

Acc makeScanSeg(const char *Name, bool Left, const Fn &F, const Scalar &Seed,
                const Acc &A, const Acc &Segs) {
  auto N = makeConsumer(Left ? static_cast<const Skeleton &>(LeftSegSkel)
                             : static_cast<const Skeleton &>(RightSegSkel),
                        Name, {A.node(), Segs.node()});
  N->ManifestKids = 2;
  N->Fns = {F};
  N->Consts = {Seed};
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  if (A.shape().rank() != 1) {
    N->Error = fmt::format("{}: needs a vector, not an array of shape {}",
                           Name, A.shape().str());
    return Acc(N);
  }
  if (Segs.shape().rank() != 1 ||
      (Segs.type() != ElemType::scalar(ScalarKind::I32) &&
       Segs.type() != ElemType::scalar(ScalarKind::I64))) {
    N->Error = fmt::format("{}: the segments must be a vector of i32 or i64, "
                           "not {} of shape {}",
                           Name, Segs.type().str(), Segs.shape().str());
    return Acc(N);
  }
  N->Error = checkCombine(F, Name, A.type(), &Seed);
  N->Sh = *Shape::make({A.shape().size() + Segs.shape().size()});
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  return Acc(N);
}

std::shared_ptr<Node> makeScan(const char *Name, bool Left, int Variant,
                               const Fn &F, const Scalar *Seed, const Acc &A) {
  auto N = makeConsumer(Left ? static_cast<const Skeleton &>(LeftSkel)
                             : static_cast<const Skeleton &>(RightSkel),
                        Name, {A.node()});
  N->Fns = {F};
  N->Code = {Variant};
  if (!N->Error.empty())
    return N;
  N->Type = A.type();
  if (A.shape().rank() != 1) {
    N->Error = fmt::format("{}: needs a vector, not an array of shape {}",
                           Name, A.shape().str());
    return N;
  }
  N->Error = checkCombine(F, Name, A.type(), Seed);
  if (Seed) {
    N->Consts = {*Seed};
  } else if (N->Error.empty() && A.shape().size() == 0) {
    N->Error = fmt::format("{} of an empty vector", Name);
  }
  int64_t Len = A.shape().size();
  N->Sh = *Shape::make({Variant == 0 ? Len + 1 : Len});
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  if (Variant == 2) {
    N->OutTypes.push_back(N->Type);
    N->OutShapes.push_back(Shape());
  }
  return N;
}

} // namespace

Acc llq::scanl(const Fn &F, const Scalar &Seed, const Acc &A) {
  return Acc(makeScan("scanl", true, 0, F, &Seed, A));
}
Acc llq::scanl1(const Fn &F, const Acc &A) {
  return Acc(makeScan("scanl1", true, 1, F, nullptr, A));
}
std::pair<Acc, Acc> llq::scanlPrime(const Fn &F, const Scalar &Seed,
                                    const Acc &A) {
  auto N = makeScan("scanl'", true, 2, F, &Seed, A);
  if (!N->Error.empty())
    return {Acc(N), Acc(N)};
  std::vector<Acc> Outs = outputsOf(N);
  return {Outs[0], Outs[1]};
}
Acc llq::scanr(const Fn &F, const Scalar &Seed, const Acc &A) {
  return Acc(makeScan("scanr", false, 0, F, &Seed, A));
}
Acc llq::scanr1(const Fn &F, const Acc &A) {
  return Acc(makeScan("scanr1", false, 1, F, nullptr, A));
}
std::pair<Acc, Acc> llq::scanrPrime(const Fn &F, const Scalar &Seed,
                                    const Acc &A) {
  auto N = makeScan("scanr'", false, 2, F, &Seed, A);
  if (!N->Error.empty())
    return {Acc(N), Acc(N)};
  std::vector<Acc> Outs = outputsOf(N);
  return {Outs[0], Outs[1]};
}
Acc llq::scanlSeg(const Fn &F, const Scalar &Seed, const Acc &A,
                  const Acc &Segs) {
  return makeScanSeg("scanlSeg", true, F, Seed, A, Segs);
}
Acc llq::scanrSeg(const Fn &F, const Scalar &Seed, const Acc &A,
                  const Acc &Segs) {
  return makeScanSeg("scanrSeg", false, F, Seed, A, Segs);
}
