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
// and eight streams of loads are in flight.
// Where the element is one field and F has a form on vectors (widenLanes),
// the chunk is scanned again eight elements at a time (ScanLanes,
// scanLanes): within the vector in rounds, then with the carry, whose chain
// is one F per vector. And the thread, having taken its next ticket before
// scanning, folds that chunk meanwhile, a step of its eight chains per
// vector, so that its reads from memory overlap this chunk's writes; its
// next chunk then starts from that fold. On a 2-core rocketlake a scan of
// 2^26 floats went from 16.7 to 20.3 GB/s (docs/Skeletons.md).
// Elsewhere the scan again works on the four quarters (ScanChunkUp/Down),
// four chains, whose stores are four streams. Eight there too ran a scan
// of 2^26 floats at 11 GB/s, against 15.6 with four.
// A chunk waits only on one ticketed before it, which a running thread
// holds, so the waits cannot deadlock: a thread takes its next ticket after
// linking its chunk, and links the chunks it holds in ticket order. An
// output too large for the caches (ScanNonTemporalBytes) is written with
// non-temporal stores (variant 1), which do not read each line from memory
// before writing it: the scan then moves the bytes of a copy, not of a
// copy and a read. The GPU keeps the three phases: its blocks are not known
// to run in ticket order as a whole grid.
//
// Code[0] is the variant: 0 scanl/scanr (n+1 outputs, the seed at the
// start / end), 1 scanl1/scanr1 (n outputs), 2 scanl'/scanr' (n exclusive
// prefixes and the total).
//
//===----------------------------------------------------------------------===//

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>
#include <functional>

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
$defs:lanes

define internal void @body.stream(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  %t = atomicrmw add ptr %ticket, i64 1 monotonic
  %more = icmp slt i64 %t, %nchunks
  %held = i1 false
  %heldfold = $type:t zeroinitializer
  while %more {
    $instrs:pick
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %lastc = icmp slt i64 %last0, %n
    %last = select i1 %lastc, i64 %last0, i64 %n
    %below = sub i64 %first, 1
    $instrs:fold
    $instrs:link
    ; The next ticket, taken before this chunk is scanned again so that the
    ; scan can fold the chunk %cn it names meanwhile (%held: into
    ; %heldfold), where it does (ScanLanes).
    %tn = atomicrmw add ptr %ticket, i64 1 monotonic
    %held = icmp slt i64 %tn, %nchunks
    $instrs:next
    %cp = getelementptr $type:t, ptr %carries, i64 %c
    $instrs:finalinit
    $instrs:scan
    %t = i64 %tn
    %more = i1 %held
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
    $instrs:rowseg
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
                          {"rowseg", rowAndSegment(G, Rank)},
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
/// The chunk %cn of the next ticket %tn (PickDown set %top).
const Template NextUp = LLQ_INSTRS(R"(
  %cn = i64 %tn
)");
const Template NextDown = LLQ_INSTRS(R"(
  %cn = sub i64 %top, %tn
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
/// The chunk scanned again Lanes elements at a time instead (where
/// scanLanes applies: one field, a function with a vector form), from %from
/// in scan order, then the 0 to Lanes - 1 left one at a time. $instrs:lanes
/// scans the elements %lb .. %lb + Lanes - 1 and stores them; the value of
/// everything before them is %accv, on every lane, which it advances.
/// Meanwhile, in the streaming scan, the chunk %cn of the thread's next
/// ticket, where %held, is folded into %heldfold, a step of its eight chains
/// per vector ($instrs:nrange, nstart, nstep and nrest: foldEighthsParts,
/// so that the fold is the one a chunk folded on its own gets): its reads
/// from memory overlap this chunk's writes, where one after the other left
/// each waiting. A row of ScanRows.cpp leaves those four empty.
/// The walk is upwards from %from to %last, or downwards from %from to
/// %below: $const:dir is 1 or -1, $opr:end %last or %below, and vector %k
/// holds the elements %lb .. %lb + Lanes - 1, %lb being $const:low (0 or
/// 1 - Lanes) from its first in scan order.
const Template ScanLanes = LLQ_INSTRS(R"(
  $instrs:nrange
  $instrs:nstart
  %span = sub i64 $opr:end, %from
  %span = mul i64 %span, $const:dir
  %nvec = udiv i64 %span, $const:width
  %vspan = mul i64 %nvec, $const:width
  %acc1 = insertelement $type:vt poison, $type:t %acc, i32 0
  %accv = shufflevector $type:vt %acc1, $type:vt poison, $type:mt zeroinitializer
  for i64 %k in 0 to %nvec {
    %lb = mul i64 %k, $const:stride
    %lb = add i64 %lb, %from
    %lb = add i64 %lb, $const:low
    $instrs:lanes
    $instrs:nstep
  }
  %acc = extractelement $type:vt %accv, i32 0
  for i64 %r in %vspan to %span {
    %j = mul i64 %r, $const:dir
    %j = add i64 %j, %from
    $instrs:step
  }
  $instrs:nrest
)");
/// The next chunk's fold started (its first step is %i = 1), and a step of
/// it while there are steps left.
const Template AheadStart = LLQ_INSTRS(R"(
  $instrs:nstart
  %i = i64 1
)");
const Template AheadStep = LLQ_INSTRS(R"(
  %stepping = icmp slt i64 %i, %e
  if %stepping {
    $instrs:nstep
    %i = add i64 %i, 1
  }
)");
/// The range [%nfirst, %nlast) of chunk %cn; empty where %held is false.
const Template NextRange = LLQ_INSTRS(R"(
  %nfirst = mul i64 %cn, %chunk
  %nlast0 = add i64 %nfirst, %chunk
  %nlastc = icmp slt i64 %nlast0, %n
  %nlast = select i1 %nlastc, i64 %nlast0, i64 %n
  %nlast = select i1 %held, i64 %nlast, i64 %nfirst
)");
/// The next chunk's steps the vectors left, and its fold's end.
const Template NextRest = LLQ_INSTRS(R"(
  if %multi {
    for i64 %i in %i to %e {
      $instrs:nstep
    }
  }
  if %held {
    $instrs:nend
  }
)");
/// The chunk's fold: the one the scan of the chunk before it made, or its
/// own.
const Template FoldOrHeld = LLQ_INSTRS(R"(
  if %held {
    %acc = $type:t %heldfold
  } else {
    $instrs:fold
  }
)");
/// %accv set to v.
const Template AdvanceCarry = LLQ_INSTRS(R"(
  %accv = $type:vt $opr:v
)");
/// The index of lane k, in the template's %j.
const Template LaneIndex = LLQ_INSTRS(R"(
  %j = add i64 %lb, $const:k
)");
/// %acc set to lane k of v.
const Template LaneValue = LLQ_INSTRS(R"(
  %acc = extractelement $type:vt $opr:v, i32 $const:k
)");
/// Lane k of vec set to x.
const Template InsertLane = LLQ_HYGIENIC_INSTRS(R"(
  %v = insertelement $type:vt $opr:vec, $type:t $opr:x, i32 $const:k
)");
/// vec, frozen: the lanes are then one value to InstCombine, which
/// otherwise splits the eight loads that build it by the lanes each round
/// uses (a 16-byte, a 4-byte, an 8-byte and a 4-byte load blended back
/// together on rocketlake: four more shuffles a vector than one load).
/// Scan of 2^14 floats 29 -> 34 GB/s, rows of 256 x 4096 41 -> 45 on a
/// 2-core rocketlake. A freeze changes only lanes that are poison, whose
/// scan is undefined either way.
const Template Opaque = LLQ_HYGIENIC_INSTRS(R"(
  %v = freeze $type:vt $opr:vec
)");
/// F of a and b on every lane (F.lanes: widenLanes).
const Template CombineLanes = LLQ_HYGIENIC_INSTRS(R"(
  %v = call $type:vt $gid:fv($type:vt $opr:a, $type:vt $opr:b)
)");
/// What widenLanes defines.
const Template LanesDeclaration = LLQ_DEFINITIONS(R"(
  declare $type:vt $gid:fv($type:vt, $type:vt)
)");
/// The lanes of a and b that mask picks (b's counted from the width).
const Template Shuffle = LLQ_HYGIENIC_INSTRS(R"(
  %v = shufflevector $type:vt $opr:a, $type:vt $opr:b, $type:mt $opr:mask
)");
/// The lanes of a where pick is true, of b elsewhere.
const Template Blend = LLQ_HYGIENIC_INSTRS(R"(
  %v = select $type:pt $opr:pick, $type:vt $opr:a, $type:vt $opr:b
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

/// The elements the chunk's vector scan takes at once.
constexpr unsigned Lanes = 8;

/// $instrs:lanes of ScanLanes: the elements %lb .. %lb + Lanes - 1
/// (Elem sets %x to element %j) gathered into a vector and scanned in it, in
/// log2(Lanes) rounds that combine each lane with the one Shift before it in
/// scan order (lanes with none keep theirs); then combined with %accv, the
/// value of everything before them on every lane, and stored lane by lane
/// by StoreJ (which stores %acc for element %j): each lane's own value, or
/// for an exclusive scan the one before it. %accv is advanced by the
/// vector's total alone, so that the chain from one vector to the next is
/// one call of F (with a lane's extraction and broadcast on it as well,
/// the chain of a float add was 11 cycles a vector on rocketlake, against
/// 4). FV is F on every lane (widenLanes), which the rounds run on the
/// lanes they keep too. They use associativity only, as the quarters of a
/// chunk do.
Code scanLanes(KernelGen &G, llvm::Type *T, const std::string &FV,
               const Code &Elem, bool Left, bool Exclusive,
               const std::function<void(Code &)> &StoreJ) {
  llvm::LLVMContext &Ctx = G.context();
  llvm::Type *VT = llvm::FixedVectorType::get(T, Lanes);
  llvm::Type *MT =
      llvm::FixedVectorType::get(llvm::Type::getInt32Ty(Ctx), Lanes);
  llvm::Type *PT =
      llvm::FixedVectorType::get(llvm::Type::getInt1Ty(Ctx), Lanes);
  Code C;
  Operand V = llvm::PoisonValue::get(VT);
  for (unsigned K = 0; K < Lanes; ++K) {
    G.code(C, LaneIndex, {{"k", K}}, {"j"});
    C.insert(C.end(), Elem.begin(), Elem.end());
    V = G.emit(C, InsertLane,
               {{"vt", VT}, {"t", T}, {"vec", V}, {"x", "x"}, {"k", K}}, "v");
  }
  V = G.emit(C, Opaque, {{"vt", VT}, {"vec", V}}, "v");
  // On every lane, Acc being what comes first in scan order: F(Acc, X)
  // upwards, F(X, Acc) downwards.
  auto Combined = [&](const Operand &Acc, const Operand &X) {
    return G.emit(C, CombineLanes,
                  {{"vt", VT}, {"fv", FV}, {"a", Left ? Acc : X},
                   {"b", Left ? X : Acc}},
                  "v");
  };
  auto Shuffled = [&](const Operand &A, const Operand &B,
                      const std::vector<uint32_t> &Mask) {
    return G.emit(C, Shuffle,
                  {{"vt", VT}, {"mt", MT}, {"a", A}, {"b", B},
                   {"mask", llvm::ConstantDataVector::get(Ctx, Mask)}},
                  "v");
  };
  for (unsigned Shift = 1; Shift < Lanes; Shift *= 2) {
    std::vector<uint32_t> From;
    std::vector<llvm::Constant *> Has;
    for (unsigned L = 0; L < Lanes; ++L) {
      bool Before = Left ? L >= Shift : L + Shift < Lanes;
      From.push_back(!Before ? L : Left ? L - Shift : L + Shift);
      Has.push_back(llvm::ConstantInt::getBool(Ctx, Before));
    }
    Operand Both = Combined(Shuffled(V, V, From), V);
    V = G.emit(C, Blend,
               {{"pt", PT}, {"vt", VT}, {"pick", llvm::ConstantVector::get(Has)},
                {"a", Both}, {"b", V}},
               "v");
  }
  // The carry's chain is one F per vector: the output is F(carry, lane)
  // on every lane, and the next carry F(carry, last lane in scan order).
  Operand Out = Combined("accv", V);
  Operand Total = Shuffled(V, V, std::vector<uint32_t>(Lanes, Left ? Lanes - 1 : 0));
  if (Exclusive) {
    // Lane L takes the output lane before it in scan order; the first, the
    // carry (Out's lanes count from Lanes).
    std::vector<uint32_t> From;
    for (unsigned L = 0; L < Lanes; ++L)
      From.push_back(Left ? (L == 0 ? 0 : Lanes + L - 1)
                          : (L == Lanes - 1 ? 0 : Lanes + L + 1));
    Out = Shuffled("accv", Out, From);
  }
  for (unsigned K = 0; K < Lanes; ++K) {
    G.code(C, LaneValue, {{"vt", VT}, {"v", Out}, {"k", K}}, {"acc"});
    G.code(C, LaneIndex, {{"k", K}}, {"j"});
    StoreJ(C);
  }
  G.code(C, AdvanceCarry, {{"vt", VT}, {"v", Combined("accv", Total)}},
         {"accv"});
  return C;
}

} // namespace

LanesScan llq::detail::scanByLanes(KernelGen &G, llvm::Type *T,
                                   const std::string &F, const Code &Elem,
                                   const Code &Step, bool Left, bool Exclusive,
                                   const std::function<void(Code &)> &StoreJ,
                                   const Operand &End, const LanesAhead &Ahead) {
  llvm::LLVMContext &Ctx = G.context();
  LanesScan L;
  L.VectorFn = F + ".lanes";
  llvm::Type *VT = llvm::FixedVectorType::get(T, Lanes);
  std::vector<std::string> Vars = {"span", "nvec", "vspan", "acc1", "accv",
                                   "k",    "lb",   "r",     "j",    "acc",
                                   "x"};
  Vars.insert(Vars.end(), Ahead.Vars.begin(), Ahead.Vars.end());
  G.code(L.Scan, ScanLanes,
         {{"lanes", scanLanes(G, T, L.VectorFn, Elem, Left, Exclusive, StoreJ)},
          {"nrange", Ahead.Range},
          {"nstart", Ahead.Start},
          {"nstep", Ahead.Step},
          {"nrest", Ahead.Rest},
          {"step", Step},
          {"t", T},
          {"vt", VT},
          {"mt", llvm::FixedVectorType::get(llvm::Type::getInt32Ty(Ctx), Lanes)},
          {"width", Lanes},
          {"dir", Left ? 1 : -1},
          {"stride", Left ? int(Lanes) : -int(Lanes)},
          {"low", Left ? 0 : 1 - int(Lanes)},
          {"end", End}},
         Vars);
  auto Decl = LanesDeclaration.fragment({{"vt", VT}, {"fv", L.VectorFn}});
  L.Declaration = Decl ? Binding(std::move(*Decl))
                       : Binding::invalid(llvm::toString(Decl.takeError()));
  return L;
}

bool llq::detail::lanesFit(const ElemType &T) {
  return !T.isTuple() && T.numFields() == 1 && T.field(0) != ScalarKind::Bool;
}

namespace {

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
      Code Pick, Next, Second, Again;
      G.code(Pick, Left ? PickUp : PickDown, {}, {"top", "c"});
      G.code(Next, Left ? NextUp : NextDown, {}, {"cn"});
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
      Code Fold = foldRange(G, ElemCode, X, "j", T, F, "first", "last", "acc",
                            /*Chains=*/8);
      // What the eight-chain folds assign (foldEighthsParts), and the
      // element's variables.
      const std::vector<std::string> FoldVars = {
          "len", "e",  "q",  "q0", "q1", "q2", "q3", "h0", "h1", "h2",
          "h3",  "multi", "o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7",
          "a0",  "a1", "a2", "a3", "i", "tail", "next", "j", "x", "acc",
          "heldfold"};
      auto Stream = [&](const Code &Fold, const Code &Scan, Binding Decl) {
        return G.instantiate(StreamScan,
                             {{"setup", Setup},
                              {"pick", Pick},
                              {"next", Next},
                              {"fold", Fold},
                              {"link", Link},
                              {"empty", Empty},
                              {"finalinit", FinalInit},
                              {"scan", Scan},
                              {"lanes", std::move(Decl)},
                              {"t", T}},
                             {"stream", "empty"}, Ctx);
      };
      // The chunk scanned again Lanes elements at a time where F has a form
      // on vectors, which only the instantiated module tells (widenLanes);
      // else, and for tuples, as the four quarters.
      if (lanesFit(N.Type)) {
        auto StoreJ = [&](Code &C) {
          Store(C,
                Variant == 0 && Left
                    ? G.emit(C, Plus, {{"v", "j"}, {"k", 1}}, "r")
                    : Operand("j"),
                NT);
        };
        FoldParts Ahead =
            foldEighthsParts(G, ElemCode, X, "j", T, F, "nfirst", "nlast",
                             "heldfold");
        Code NRange, NStart, NStep, NRest, Folded;
        G.code(NRange, NextRange, {}, {"nfirst", "nlast0", "nlastc", "nlast"});
        G.code(NStart, AheadStart, {{"nstart", Ahead.Start}}, FoldVars);
        G.code(NStep, AheadStep, {{"nstep", Ahead.Step}},
               {"stepping", "i", "j", "x", "o0", "o1", "o2", "o3", "o4",
                "o5", "o6", "o7"});
        G.code(NRest, NextRest, {{"nstep", Ahead.Step}, {"nend", Ahead.End}},
               FoldVars);
        G.code(Folded, FoldOrHeld, {{"t", T}, {"fold", Fold}}, FoldVars);
        std::vector<std::string> Vars = {"stepping", "nfirst", "nlast0",
                                         "nlastc", "nlast"};
        Vars.insert(Vars.end(), FoldVars.begin(), FoldVars.end());
        LanesScan L = scanByLanes(G, T, F, Elem, Step, Left, Variant == 2,
                                  StoreJ, Left ? "last" : "below",
                                  {NRange, NStart, NStep, NRest, Vars});
        auto M = Stream(Folded, L.Scan, std::move(L.Declaration));
        if (!M || widenLanes(**M, F, L.VectorFn))
          return M;
      }
      return Stream(Fold, Again, std::vector<Binding>());
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
