//===- Scan.cpp - Scans: scanl, scanl1, scanl', scanr, scanr1, scanr' -----===//
//
// A parallel scan of a vector in three phases (a scan of a higher rank
// scans each row: ScanRows.cpp), over chunks that depend on
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
// once instead of twice. The fold works on the eight halves of the chunk's
// quarters at once (foldRange with 8 chains), so that eight chains of calls
// and eight streams of loads are in flight; the scan again works on the
// four quarters (ScanChunkUp/Down), four chains, whose stores are four
// streams. Eight there too ran a scan of 2^26 floats at 11 GB/s, against
// 15.6 with four (and 14.5-15.3 with a fold of four), on a 2-core
// rocketlake (docs/Skeletons.md).
// A chunk waits only on one ticketed before it, which a running thread
// holds, so the waits cannot deadlock. An output too large for the caches
// (ScanNonTemporalBytes) is written with non-temporal stores (variant 1),
// which do not read each line from memory before writing it: the scan then
// moves the bytes of a copy, not of a copy and a read. The GPU keeps the
// three phases: its
// blocks are not known to run in ticket order as a whole grid.
//
// Code[0] is the variant: 0 scanl/scanr (n+1 outputs, the seed at the
// start / end), 1 scanl1/scanr1 (n outputs), 2 scanl'/scanr' (n exclusive
// prefixes and the total).
//
//===----------------------------------------------------------------------===//

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {


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
  ; Non-temporal stores are weakly ordered: make them visible before the
  ; launch's join says the output is written.
  fence seq_cst
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

// scanlSeg / scanrSeg: one segment of one row per index. Segment s of
// length l starting at o is written at o + s .. o + s + l of its row (its
// seed included), rows being n + nseg long.
const Template ScanSegSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.seg(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  %nseg = i64 $opr:nseg
  %width = i64 $opr:width
  for i64 %it in %lo to %hi {
    %row = sdiv i64 %it, %nseg
    %s = srem i64 %it, %nseg
    $instrs:outer
    %op = getelementptr i64, ptr %offs, i64 %s
    %first = load i64, ptr %op
    %lp = getelementptr i64, ptr %lens, i64 %s
    %len = load i64, ptr %lp
    %last = add i64 %first, %len
    %rowbase = mul i64 %row, %width
    %inrow = add i64 %first, %s
    %base = add i64 %rowbase, %inrow
    $instrs:body
  }
  ret void
}

$defs:entries
)");

/// The scans' slots, as the templates' variables.
const Template ScanSetup = LLQ_INSTRS(R"(
  %n = i64 $opr:n
  %nchunks = i64 $opr:nchunks
  %chunk = i64 $opr:chunk
  %sums = ptr $opr:sums
  %carries = ptr $opr:carries
)");
const Template StreamSetup = LLQ_INSTRS(R"(
  %flags = ptr $opr:flags
  %ticket = ptr $opr:ticket
)");
const Template SegSetup = LLQ_INSTRS(R"(
  %offs = ptr $opr:offs
  %lens = ptr $opr:lens
)");

/// $id:dest = F(a, b).
const Template Combine = LLQ_HYGIENIC_INSTRS(R"(
  $id:dest = call $type:t $gid:f($type:t $opr:a, $type:t $opr:b)
)");
/// v + k.
const Template Plus = LLQ_HYGIENIC_INSTRS(R"(
  %r = add i64 $opr:v, $const:k
)");

/// A segment scanned from its seed: upwards, the seed at its start, or
/// downwards, the seed at its end.
const Template SegLeft = LLQ_INSTRS(R"(
  $instrs:seedcode
  %acc = $type:t $opr:seed
  $instrs:storebase
  for i64 %j in %first to %last {
    $instrs:elem
    %acc = call $type:t $gid:f($type:t %acc, $type:t %x)
    %d = sub i64 %j, %first
    %o1 = add i64 %base, %d
    %o = add i64 %o1, 1
    $instrs:storeo
  }
)");
const Template SegRight = LLQ_INSTRS(R"(
  $instrs:seedcode
  %acc = $type:t $opr:seed
  %top = add i64 %base, %len
  $instrs:storetop
  %jt = sub i64 %last, 1
  %jb = sub i64 %first, 1
  for i64 %j in %jt downto %jb {
    $instrs:elem
    %acc = call $type:t $gid:f($type:t %x, $type:t %acc)
    %d = sub i64 %j, %first
    %o = add i64 %base, %d
    $instrs:storeo
  }
)");

class ScanSeg final : public LibrarySkeleton {
public:
  explicit ScanSeg(bool Left)
      : LibrarySkeleton(scanSegLauncher(Left)), Left(Left) {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    llvm::Type *T = G.type(N.Type);
    Code Setup, Outer, Body, Elem, SeedCode, AtStart, Step;
    G.code(Setup, SegSetup, {{"offs", G.hostPtr(0)}, {"lens", G.hostPtr(1)}},
           {"offs", "lens"});
    unsigned Rank = A.Sh.rank();
    std::vector<Operand> Ix;
    if (Rank > 1)
      Ix = G.multiOf(A, "row", Outer, int(Rank) - 1);
    Ix.push_back("j");
    G.assign(Elem, "x", T, G.elemMulti(A, Ix, Elem));
    std::vector<Operand> Out = G.outBuffers(0, N.Type);
    Operand Seed = G.constant(N, 0, SeedCode);
    G.store(N.Type, Out, "acc", Left ? "base" : "top", AtStart);
    G.store(N.Type, Out, "acc", "o", Step);
    Bindings B{{"seedcode", SeedCode}, {"seed", Seed}, {"t", T},
               {"elem", Elem}, {"f", G.fn(N.Fns[0])}, {"storeo", Step},
               {Left ? "storebase" : "storetop", AtStart}};
    G.code(Body, Left ? SegLeft : SegRight, B,
           {"acc", "j", "d", "o1", "o", "top", "jt", "jb", "x"});
    return G.instantiate(ScanSegSkeleton,
                         {{"setup", Setup},
                          {"nseg", G.hostInt(2)},
                          {"width", G.extent(N, Rank - 1)},
                          {"outer", Outer},
                          {"body", Body}},
                         {"seg"}, Ctx);
  }


private:
  bool Left;
};

/// Where the three-phase scan's carry phase starts (%carry, %c0), and how
/// the final phase starts a chunk (%acc, %from): for scanl1/scanr1, the
/// chunk at the scan's start starts from its own first element.
const Template CarryFromFirst = LLQ_INSTRS(R"(
  %lastchunk = sub i64 %nchunks, 1
  %sp0 = getelementptr $type:t, ptr %sums, i64 $opr:edge
  %carry = load $type:t, ptr %sp0
  %c0 = add i64 $opr:c0base, $const:c0off
)");
const Template CarryFromSeed = LLQ_INSTRS(R"(
  $instrs:seedcode
  %carry = $type:t $opr:seed
  %c0 = add i64 $opr:c0base, $const:c0off
)");
const Template FinalFromFirst = LLQ_INSTRS(R"(
  %lastchunk = sub i64 %nchunks, 1
  %edge = icmp eq i64 %c, $opr:edge
  if %edge {
    %j = add i64 $opr:jbase, $const:joff
    $instrs:elem
    %acc = $type:t %x
    $instrs:storej
    %from = add i64 $opr:jbase, $const:fromoff
  } else {
    %acc = load $type:t, ptr %cp
    %from = add i64 $opr:jbase, $const:joff
  }
)");
const Template FinalFromCarry = LLQ_INSTRS(R"(
  %acc = load $type:t, ptr %cp
  %from = add i64 $opr:jbase, $const:joff
)");

/// The streaming scan: the chunk of ticket %t, and its link to the chunk
/// before it in scan order: wait until that one has published the value of
/// everything up to its end (%carry; the seed or nothing at the scan's
/// start), publish this chunk's own ($instrs:incl makes %incl from %carry
/// and the chunk's fold %acc), and at the scan's end write what comes
/// after everything ($instrs:carrydone).
const Template PickUp = LLQ_INSTRS(R"(
  %c = i64 %t
)");
const Template PickDown = LLQ_INSTRS(R"(
  %top = sub i64 %nchunks, 1
  %c = sub i64 %top, %t
)");
const Template StreamLink = LLQ_INSTRS(R"(
  $instrs:seedcode
  %endchunk = sub i64 %nchunks, 1
  %edge = icmp eq i64 %c, $opr:edge
  %carry = $type:t $opr:start
  %inner = xor i1 %edge, true
  if %inner {
    %prev = add i64 %c, $const:prevoff
    %fp = getelementptr i32, ptr %flags, i64 %prev
    %ready = load atomic i32, ptr %fp acquire, align 4
    %wait = icmp eq i32 %ready, 0
    while %wait {
      %ready = load atomic i32, ptr %fp acquire, align 4
      %wait = icmp eq i32 %ready, 0
    }
    %pp = getelementptr $type:t, ptr %sums, i64 %prev
    %carry = load $type:t, ptr %pp
  }
  %cq = getelementptr $type:t, ptr %carries, i64 %c
  store $type:t %carry, ptr %cq
  %cin = $type:t %carry
  $instrs:incl
  %ip = getelementptr $type:t, ptr %sums, i64 %c
  store $type:t %incl, ptr %ip
  %fc = getelementptr i32, ptr %flags, i64 %c
  store atomic i32 1, ptr %fc release, align 4
  %done = icmp eq i64 %c, $opr:end
  if %done {
    %carry = $type:t %incl
    $instrs:carrydone
  }
)");
/// scanl1/scanr1: the chunk at the scan's start has no carry.
const Template InclusiveOfInner = LLQ_INSTRS(R"(
  %incl = $type:t %acc
  if %inner {
    $instrs:combine
  }
)");
const Template EmptyScan = LLQ_INSTRS(R"(
  $instrs:seedcode
  %carry = $type:t $opr:seed
  $instrs:carrydone
)");

/// The chunk scanned again, after the final init has set %acc and %from
/// for its first element in scan order: as four quarters at once when the
/// fold made them (%multi; the fold's eight halves are combined into the
/// quarters' %a0 .. %a3), each from its own carry (the chunk's carry,
/// %cin, combined with the folds %a0 .. %a3 of the quarters before it in
/// scan order), else as one chain. $instrs:step scans element %j into
/// %acc. $instrs:second sets the carry of the second quarter in scan order
/// (%k1 upwards, %k2 downwards) from %kc1 / %kc2: for scanl1/scanr1, the
/// chunk at the scan's start (%inner false) starts it from its first
/// quarter's fold, not from a carry.
const Template ScanChunkUp = LLQ_INSTRS(R"(
  if %multi {
    %kc1 = call $type:t $gid:f($type:t %cin, $type:t %a0)
    $instrs:second
    %kc2 = call $type:t $gid:f($type:t %k1, $type:t %a1)
    %k2 = $type:t %kc2
    %kc3 = call $type:t $gid:f($type:t %k2, $type:t %a2)
    %k3 = $type:t %kc3
    %k0 = $type:t %acc
    for i64 %i in 0 to %q {
      %j = add i64 %first, %i
      %ok = icmp sge i64 %j, %from
      if %ok {
        %acc = $type:t %k0
        $instrs:step
        %k0 = $type:t %acc
      }
      %j = add i64 %q1, %i
      %acc = $type:t %k1
      $instrs:step
      %k1 = $type:t %acc
      %j = add i64 %q2, %i
      %acc = $type:t %k2
      $instrs:step
      %k2 = $type:t %acc
      %j = add i64 %q3, %i
      %acc = $type:t %k3
      $instrs:step
      %k3 = $type:t %acc
    }
    %acc = $type:t %k3
    %tail = add i64 %q3, %q
    for i64 %j in %tail to %last {
      $instrs:step
    }
  } else {
    for i64 %j in %from to %last {
      $instrs:step
    }
  }
)");
const Template ScanChunkDown = LLQ_INSTRS(R"(
  if %multi {
    %kc2 = call $type:t $gid:f($type:t %a3, $type:t %cin)
    $instrs:second
    %kc1 = call $type:t $gid:f($type:t %a2, $type:t %k2)
    %k1 = $type:t %kc1
    %kc0 = call $type:t $gid:f($type:t %a1, $type:t %k1)
    %k0 = $type:t %kc0
    %k3 = $type:t %acc
    for i64 %i in 0 to %q {
      %j = sub i64 %last, 1
      %j = sub i64 %j, %i
      %ok = icmp sle i64 %j, %from
      if %ok {
        %acc = $type:t %k3
        $instrs:step
        %k3 = $type:t %acc
      }
      %j = sub i64 %q3, 1
      %j = sub i64 %j, %i
      %acc = $type:t %k2
      $instrs:step
      %k2 = $type:t %acc
      %j = sub i64 %q2, 1
      %j = sub i64 %j, %i
      %acc = $type:t %k1
      $instrs:step
      %k1 = $type:t %acc
      %j = sub i64 %q1, 1
      %j = sub i64 %j, %i
      %acc = $type:t %k0
      $instrs:step
      %k0 = $type:t %acc
    }
    %acc = $type:t %k3
    %rest = sub i64 %last, %q
    %rest = sub i64 %rest, 1
    %qb = sub i64 %q3, 1
    for i64 %j in %rest downto %qb {
      $instrs:step
    }
  } else {
    for i64 %j in %from downto %below {
      $instrs:step
    }
  }
)");
/// The second quarter's carry: always combined, or, for scanl1/scanr1,
/// only inside the scan.
const Template SecondCarry = LLQ_INSTRS(R"(
  $id:k = $type:t $id:kc
)");
const Template SecondCarryOfInner = LLQ_INSTRS(R"(
  $id:k = $type:t $id:fold
  if %inner {
    $id:k = $type:t $id:kc
  }
)");

class Scan final : public LibrarySkeleton {
public:
  explicit Scan(bool Left)
      : LibrarySkeleton(scanLauncher(Left)), Left(Left) {}


  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    int64_t Variant = N.Code[0];
    llvm::Type *T = G.type(N.Type);
    std::string F = G.fn(N.Fns[0]);
    Code Setup;
    G.code(Setup, ScanSetup,
           {{"n", G.hostInt(0)},
            {"nchunks", G.hostInt(1)},
            {"chunk", G.hostInt(2)},
            {"sums", G.hostPtr(3)},
            {"carries", G.hostPtr(4)}},
           {"n", "nchunks", "chunk", "sums", "carries"});
    // The element %j: its code, its value X, and both with %x set to it.
    Code ElemCode;
    Operand X = G.elemMulti(A, {"j"}, ElemCode);
    Code Elem = ElemCode;
    G.assign(Elem, "x", T, X);
    std::vector<Operand> Out = G.outBuffers(0, N.Type);
    // Dest = F(Acc, X) for left scans, F(X, Acc) for right ones: Acc is
    // what comes first in scan order.
    auto Combined = [&](Code &C, const char *Acc, const char *X,
                        const char *Dest = "acc") {
      G.emit(C, Combine,
             {{"dest", Dest}, {"t", T}, {"f", F}, {"a", Left ? Acc : X},
              {"b", Left ? X : Acc}});
    };
    auto Store = [&](Code &C, const Operand &At, bool NonTemporal = false) {
      G.store(N.Type, Out, "acc", At, C, NonTemporal);
    };
    // Offsets of the first element in scan order from %first (upwards) or
    // %last (downwards).
    Operand Base = Left ? "first" : "last";
    int64_t FirstOff = Left ? 0 : -1, SecondOff = Left ? 1 : -2;
    // Step scans element %j into %acc and stores it, non-temporally in
    // variant 1 (an output too large for the caches).
    Code CarryInit, CarryDone, FinalInit, Step;
    bool NT = variant(N, G.backend()) == 1;
    // The seed's operand, and the code that makes it (scans with a seed).
    Operand Seed = 0;
    Code SeedCode;
    const std::vector<std::string> InitNames = {
        "lastchunk", "sp0", "carry", "c0", "edge", "j", "acc", "from", "x"};
    if (Variant == 1) {
      G.code(CarryInit, CarryFromFirst,
             {{"t", T},
              {"edge", Left ? Operand(0) : Operand("lastchunk")},
              {"c0base", Left ? Operand(0) : Operand("nchunks")},
              {"c0off", Left ? 1 : -2}},
             InitNames);
      Code StoreJ;
      Store(StoreJ, "j");
      G.code(FinalInit, FinalFromFirst,
             {{"t", T},
              {"edge", Left ? Operand(0) : Operand("lastchunk")},
              {"jbase", Base},
              {"joff", FirstOff},
              {"fromoff", SecondOff},
              {"elem", Elem},
              {"storej", StoreJ}},
             InitNames);
      Step = Elem;
      Combined(Step, "acc", "x");
      Store(Step, "j", NT);
    } else {
      Seed = G.constant(N, 0, SeedCode);
      G.code(CarryInit, CarryFromSeed,
             {{"t", T},
              {"seedcode", SeedCode},
              {"seed", Seed},
              {"c0base", Left ? Operand(0) : Operand("nchunks")},
              {"c0off", Left ? 0 : -1}},
             InitNames);
      G.code(FinalInit, FinalFromCarry,
             {{"t", T}, {"jbase", Base}, {"joff", FirstOff}}, InitNames);
      if (Variant == 0) {
        // scanl writes the seed at 0 and element j at j+1; scanr the seed
        // at n and element j at j.
        G.store(N.Type, Out, Seed, Left ? Operand(0) : Operand("n"), CarryDone);
        Step = Elem;
        Combined(Step, "acc", "x");
        Store(Step,
              Left ? G.emit(Step, Plus, {{"v", "j"}, {"k", 1}}, "r")
                   : Operand("j"),
              NT);
      } else {
        G.store(N.Type, G.outBuffers(1, N.Type), "carry", 0, CarryDone);
        Store(Step, "j", NT);
        Step.insert(Step.end(), Elem.begin(), Elem.end());
        Combined(Step, "acc", "x");
      }
    }
    if (G.backend().piecesInOrder()) {
      Code Link, Empty, Incl;
      if (Variant != 1)
        G.code(Empty, EmptyScan,
               {{"t", T}, {"seedcode", SeedCode}, {"seed", Seed},
                {"carrydone", CarryDone}},
               {"carry"});
      if (Variant == 1) {
        Code Inner;
        Combined(Inner, "carry", "acc", "incl");
        G.code(Incl, InclusiveOfInner, {{"t", T}, {"combine", Inner}},
               {"incl"});
      } else {
        Combined(Incl, "carry", "acc", "incl");
      }
      G.code(Link, StreamLink,
             {{"t", T},
              {"seedcode", SeedCode},
              {"edge", Left ? Operand(0) : Operand("endchunk")},
              {"start", Variant == 1 ? Operand("acc") : Seed},
              {"prevoff", Left ? -1 : 1},
              {"incl", Incl},
              {"end", Left ? Operand("endchunk") : Operand(0)},
              {"carrydone", CarryDone}},
             {"endchunk", "edge", "carry", "inner", "prev", "fp", "ready",
              "wait", "pp", "cq", "cin", "ip", "fc", "done", "incl"});
      G.code(Setup, StreamSetup,
             {{"flags", G.hostPtr(5)}, {"ticket", G.hostPtr(6)}},
             {"flags", "ticket"});
      Code Pick, Second, Again;
      G.code(Pick, Left ? PickUp : PickDown, {}, {"top", "c"});
      const char *K = Left ? "k1" : "k2", *KC = Left ? "kc1" : "kc2";
      if (Variant == 1)
        G.code(Second, SecondCarryOfInner,
               {{"t", T}, {"k", K}, {"kc", KC}, {"fold", Left ? "a0" : "a3"}},
               {K});
      else
        G.code(Second, SecondCarry, {{"t", T}, {"k", K}, {"kc", KC}}, {K});
      G.code(Again, Left ? ScanChunkUp : ScanChunkDown,
             {{"t", T}, {"f", F}, {"second", Second}, {"step", Step}},
             {"kc0", "kc1", "kc2", "kc3", "k0", "k1", "k2", "k3", "i", "j",
              "ok", "acc", "tail", "rest", "qb", "x"});
      return G.instantiate(StreamScan,
                           {{"setup", Setup},
                            {"pick", Pick},
                            {"fold", foldRange(G, ElemCode, X, "j", T, F,
                                               "first", "last", "acc",
                                               /*Chains=*/8)},
                            {"link", Link},
                            {"empty", Empty},
                            {"finalinit", FinalInit},
                            {"scan", Again},
                            {"t", T}},
                           {"stream", "empty"}, Ctx);
    }
    return G.instantiate(Left ? ScanLeft : ScanRight,
                         {{"setup", Setup},
                          {"elem", Elem},
                          {"carryinit", CarryInit},
                          {"carrydone", CarryDone},
                          {"finalinit", FinalInit},
                          {"step", Step},
                          {"t", T},
                          {"f", F}},
                         {"sums", "carry", "final"}, Ctx);
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
  unsigned Rank = A.shape().rank();
  if (Rank == 0) {
    N->Error = fmt::format("{}: needs an array of rank 1 or more, not a "
                           "scalar",
                           Name);
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
  Extents E(A.shape().extents(), A.shape().extents() + Rank);
  E.back() += Segs.shape().size();
  rt::Expected<Shape> Sh = Shape::make(E);
  if (!Sh) {
    N->Error = fmt::format("{}: {}", Name, Sh.message());
    return Acc(N);
  }
  N->Sh = *Sh;
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  return Acc(N);
}

/// A scan of A's innermost dimension: Scan's of a vector, ScanRows' row by
/// row for a higher rank.
std::shared_ptr<Node> makeScan(const char *Name, bool Left, int Variant,
                               const Fn &F, const Scalar *Seed, const Acc &A) {
  bool Rows = A.node() && A.shape().rank() >= 2;
  const Skeleton &Skel =
      Rows ? scanRowsSkeleton(Left)
           : Left ? static_cast<const Skeleton &>(LeftSkel)
                  : static_cast<const Skeleton &>(RightSkel);
  auto N = makeConsumer(Skel, Name, {A.node()});
  N->Fns = {F};
  N->Code = {Variant};
  if (!N->Error.empty())
    return N;
  N->Type = A.type();
  unsigned Rank = A.shape().rank();
  if (Rank == 0) {
    N->Error = fmt::format("{}: needs an array of rank 1 or more, not a "
                           "scalar",
                           Name);
    return N;
  }
  N->Error = checkCombine(F, Name, A.type(), Seed);
  if (Seed)
    N->Consts = {*Seed};
  N->OutTypes = {N->Type};
  if (Variant == 2)
    N->OutTypes.push_back(N->Type);
  // The shapes, and an empty scan without a seed, by the launcher's rule,
  // which a run on arrays of other extents applies again.
  if (rt::Status S = N->Skel->reshape(*N); !S.ok() && N->Error.empty())
    N->Error = S.message();
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
