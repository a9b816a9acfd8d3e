//===- SSABuilderTest.cpp - Unit tests of the SSA builder ------------------===//
//
// Each test builds the pseudo-program written above it, block by block, in
// the order a front end lowering it would: a block is sealed once all its
// predecessors are known, and an edge is added when the branch that makes it
// is emitted. The builder makes no IR, so in place of the LLVM verifier each
// test ends with checkInvariants(), the structural invariant of the result.
//
//===----------------------------------------------------------------------===//

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "llquote/ssa/SSABuilder.h"

#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace llq::ssa;

namespace {

/// A builder plus the uses made so far, so the final check can see them.
struct Program {
  SSABuilder B;
  std::vector<Value> Uses;

  Block block(std::initializer_list<Block> Preds = {}) {
    Block Bl = B.declareBlock();
    for (Block P : Preds)
      B.addPredecessor(Bl, P);
    return Bl;
  }
  /// A fresh client value assigned to Var in Bl: `Var = <new value>`.
  Value def(Variable Var, Block Bl) {
    Value V = B.createValue();
    B.defVar(Var, V, Bl);
    return V;
  }
  Value use(Variable Var, Block Bl) {
    Value V = B.useVar(Var, Bl);
    Uses.push_back(V);
    return V;
  }
};

/// Violations are counted rather than CHECKed one by one, because the large
/// tests have tens of thousands of phis.
void checkInvariants(const SSABuilder &B, const std::vector<Value> &Uses) {
  REQUIRE(B.isFinished());
  unsigned WrongArity = 0, Unresolved = 0, Trivial = 0, BadUses = 0;
  for (Value P : B.phis()) {
    REQUIRE(B.isPhi(P));
    REQUIRE_FALSE(B.isRemoved(P));
    llvm::ArrayRef<Value> Ops = B.phiOperands(P);
    WrongArity += Ops.size() != B.predecessors(B.blockOf(P)).size();
    std::optional<Value> Same;
    bool IsTrivial = true;
    for (Value Op : Ops) {
      Unresolved += B.resolve(Op) != Op || B.isRemoved(Op);
      if (Op == P || (Same && *Same == Op))
        continue;
      IsTrivial = !Same.has_value();
      Same = Op;
      if (!IsTrivial)
        break;
    }
    Trivial += IsTrivial;
  }
  for (Value U : Uses)
    BadUses += B.isRemoved(B.resolve(U));
  CHECK(WrongArity == 0);
  CHECK(Unresolved == 0);
  CHECK(Trivial == 0);
  CHECK(BadUses == 0);
}

std::vector<Value> ops(const SSABuilder &B, Value Phi) {
  llvm::ArrayRef<Value> Ops = B.phiOperands(Phi);
  return std::vector<Value>(Ops.begin(), Ops.end());
}

template <typename Clock = std::chrono::steady_clock>
double secondsSince(typename Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

const Variable X{0}, Y{1}, Z{2};

} // namespace

// entry:  x = a; y = b
// header: (entry, body) use x; use y; if (...) goto body else goto exit
// body:   y = c; goto header
// exit:   use x; use y
TEST_CASE("program_with_loop") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry), Bv = P.def(Y, Entry);
  Block Header = P.block({Entry});
  Value XInHeader = P.use(X, Header);
  Value YInHeader = P.use(Y, Header);
  CHECK(P.B.isIncompletePhi(XInHeader));
  CHECK(P.B.isIncompletePhi(YInHeader));
  Block Body = P.block({Header});
  P.B.sealBlock(Body);
  Value C = P.def(Y, Body);
  P.B.addPredecessor(Header, Body);
  P.B.sealBlock(Header);
  Block Exit = P.block({Header});
  P.B.sealBlock(Exit);
  Value XInExit = P.use(X, Exit), YInExit = P.use(Y, Exit);
  P.B.finish();

  // x is never redefined, so its phi was phi(a, itself) and went away.
  CHECK(P.B.resolve(XInHeader) == A);
  CHECK(P.B.resolve(XInExit) == A);
  REQUIRE(P.B.phis().size() == 1);
  Value Phi = P.B.phis()[0];
  CHECK(Phi == YInHeader);
  CHECK(P.B.blockOf(Phi) == Header);
  CHECK(P.B.variableOf(Phi) == Y);
  CHECK(ops(P.B, Phi) == std::vector<Value>{Bv, C});
  CHECK(P.B.resolve(YInExit) == Phi);
  checkInvariants(P.B, P.Uses);
}

// entry:  i = 0; s = 0; n = param
// header: (entry, body) if (i < n) goto body else goto exit
// body:   s = s + i; i = i + 1; goto header
// exit:   return s
TEST_CASE("sum_loop_has_two_phis") {
  const Variable I{0}, S{1}, N{2};
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value Zero = P.B.createValue();
  P.B.defVar(I, Zero, Entry);
  P.B.defVar(S, Zero, Entry);
  Value Param = P.def(N, Entry);
  Block Header = P.block({Entry});
  Value IInHeader = P.use(I, Header);
  Value NInHeader = P.use(N, Header);
  Block Body = P.block({Header});
  P.B.sealBlock(Body);
  Value SInBody = P.use(S, Body);
  Value IInBody = P.use(I, Body);
  Value Sum = P.def(S, Body);
  Value IInBody2 = P.use(I, Body);
  Value Next = P.def(I, Body);
  P.B.addPredecessor(Header, Body);
  P.B.sealBlock(Header);
  Block Exit = P.block({Header});
  P.B.sealBlock(Exit);
  Value SInExit = P.use(S, Exit);
  P.B.finish();

  REQUIRE(P.B.phis().size() == 2);
  Value IPhi = P.B.phis()[0], SPhi = P.B.phis()[1];
  CHECK(P.B.variableOf(IPhi) == I);
  CHECK(P.B.variableOf(SPhi) == S);
  CHECK(P.B.blockOf(IPhi) == Header);
  CHECK(P.B.blockOf(SPhi) == Header);
  CHECK(ops(P.B, IPhi) == std::vector<Value>{Zero, Next});
  CHECK(ops(P.B, SPhi) == std::vector<Value>{Zero, Sum});
  CHECK(P.B.resolve(IInHeader) == IPhi);
  CHECK(P.B.resolve(IInBody) == IPhi);
  CHECK(P.B.resolve(IInBody2) == IPhi);
  CHECK(P.B.resolve(SInBody) == SPhi);
  CHECK(P.B.resolve(SInExit) == SPhi);
  CHECK(P.B.resolve(NInHeader) == Param);
  checkInvariants(P.B, P.Uses);
}

// entry: x = a; y = b; if (c) goto then else goto else
// then:  x = d; use x
// else:  use y
// merge: (then, else) use x; use y
TEST_CASE("diamond_if_else") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry), Bv = P.def(Y, Entry);
  Block Then = P.block({Entry}), Else = P.block({Entry});
  P.B.sealBlock(Then);
  P.B.sealBlock(Else);
  Value D = P.def(X, Then);
  // Local value numbering: the last definition in the block, no phi.
  CHECK(P.use(X, Then) == D);
  CHECK(P.use(Y, Else) == Bv);
  Block Merge = P.block({Then, Else});
  P.B.sealBlock(Merge);
  Value XInMerge = P.use(X, Merge), YInMerge = P.use(Y, Merge);
  P.B.finish();

  REQUIRE(P.B.phis().size() == 1);
  Value Phi = P.B.phis()[0];
  CHECK(Phi == XInMerge);
  CHECK(P.B.blockOf(Phi) == Merge);
  CHECK(ops(P.B, Phi) == std::vector<Value>{D, A});
  CHECK(P.B.resolve(YInMerge) == Bv);
  checkInvariants(P.B, P.Uses);
}

// entry: if (c) goto then else goto else
// then:  x = a
// else:
// merge: (then, else) use x     -- x is undefined on the path through else
//        use y                  -- y is undefined on every path
TEST_CASE("undefined_on_one_path") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Block Then = P.block({Entry}), Else = P.block({Entry});
  P.B.sealBlock(Then);
  P.B.sealBlock(Else);
  Value A = P.def(X, Then);
  Block Merge = P.block({Then, Else});
  P.B.sealBlock(Merge);

  // tryUseVar reports the undefined path and leaves no trace of its search.
  unsigned ValuesBefore = P.B.numValues();
  CHECK_FALSE(P.B.tryUseVar(X, Merge).has_value());
  CHECK_FALSE(P.B.tryUseVar(Y, Merge).has_value());
  CHECK(P.B.numValues() == ValuesBefore);
  // x is defined on every path to the end of then.
  std::optional<Value> XInThen = P.B.tryUseVar(X, Then);
  REQUIRE(XInThen.has_value());
  CHECK(*XInThen == A);

  Value XInMerge = P.use(X, Merge);
  Value YInMerge = P.use(Y, Merge);
  P.B.finish();

  // A phi with an undef operand is not trivial: the client decides.
  REQUIRE(P.B.phis().size() == 1);
  Value Phi = P.B.phis()[0];
  CHECK(Phi == XInMerge);
  std::vector<Value> Ops = ops(P.B, Phi);
  REQUIRE(Ops.size() == 2);
  CHECK(Ops[0] == A);
  CHECK(P.B.isUndef(Ops[1]));
  // The read through else found x undefined at the entry; operand 1 says
  // which path: the one through Merge's second predecessor, else.
  CHECK(P.B.blockOf(Ops[1]) == Entry);
  CHECK(P.B.variableOf(Ops[1]) == X);
  CHECK(P.B.predecessors(Merge)[1] == Else);
  // Both paths reach the one undef the entry has for y: trivial, no phi.
  CHECK(P.B.isUndef(P.B.resolve(YInMerge)));
  CHECK(P.B.blockOf(P.B.resolve(YInMerge)) == Entry);
  checkInvariants(P.B, P.Uses);
}

// entry:  x = a
// header: (entry, body) use x; if (...) goto body else goto exit
// body:   x = b; goto header
// exit:   use x
TEST_CASE("while_loop_reassign") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Header = P.block({Entry});
  Value XInHeader = P.use(X, Header);
  Block Body = P.block({Header});
  P.B.sealBlock(Body);
  Value Bv = P.def(X, Body);
  P.B.addPredecessor(Header, Body);
  P.B.sealBlock(Header);
  Block Exit = P.block({Header});
  P.B.sealBlock(Exit);
  Value XInExit = P.use(X, Exit);
  P.B.finish();

  REQUIRE(P.B.phis().size() == 1);
  Value Phi = P.B.phis()[0];
  CHECK(P.B.blockOf(Phi) == Header);
  CHECK(ops(P.B, Phi) == std::vector<Value>{A, Bv});
  CHECK(P.B.resolve(XInHeader) == Phi);
  CHECK(P.B.resolve(XInExit) == Phi);
  checkInvariants(P.B, P.Uses);
}

// entry:  x = a
// header: (entry, body) use x
// body:   x = x; goto header      -- a copy is no new value
// exit:   use x
TEST_CASE("loop_copy_is_not_a_merge") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Header = P.block({Entry});
  P.use(X, Header);
  Block Body = P.block({Header});
  P.B.sealBlock(Body);
  P.B.defVar(X, P.use(X, Body), Body);
  P.B.addPredecessor(Header, Body);
  P.B.sealBlock(Header);
  Block Exit = P.block({Header});
  P.B.sealBlock(Exit);
  Value XInExit = P.use(X, Exit);
  P.B.finish();

  CHECK(P.B.phis().empty());
  CHECK(P.B.resolve(XInExit) == A);
  for (Value U : P.Uses)
    CHECK(P.B.resolve(U) == A);
  checkInvariants(P.B, P.Uses);
}

// entry: i = a; j = b
// outer: (entry, innerExit)   use i
// inner: (outer, innerBody)   use j
// innerBody: (inner)          j = c; goto inner
// innerExit: (inner)          i = d; goto outer
// exit:  (outer)              use i; use j
TEST_CASE("nested_loops") {
  const Variable I{0}, J{1};
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(I, Entry), Bv = P.def(J, Entry);
  Block Outer = P.block({Entry});
  Value IInOuter = P.use(I, Outer);
  Block Inner = P.block({Outer});
  Value JInInner = P.use(J, Inner);
  Block InnerBody = P.block({Inner});
  P.B.sealBlock(InnerBody);
  Value C = P.def(J, InnerBody);
  P.B.addPredecessor(Inner, InnerBody);
  P.B.sealBlock(Inner);
  Block InnerExit = P.block({Inner});
  P.B.sealBlock(InnerExit);
  Value D = P.def(I, InnerExit);
  P.B.addPredecessor(Outer, InnerExit);
  P.B.sealBlock(Outer);
  Block Exit = P.block({Outer});
  P.B.sealBlock(Exit);
  Value IInExit = P.use(I, Exit), JInExit = P.use(J, Exit);
  P.B.finish();

  // Inner's phi for j read j at the end of outer, which made the phi there.
  REQUIRE(P.B.phis().size() == 3);
  Value IOuter = P.B.phis()[0], JInnerPhi = P.B.phis()[1],
        JOuter = P.B.phis()[2];
  CHECK(IOuter == IInOuter);
  CHECK(JInnerPhi == JInInner);
  CHECK(P.B.blockOf(IOuter) == Outer);
  CHECK(P.B.blockOf(JInnerPhi) == Inner);
  CHECK(P.B.blockOf(JOuter) == Outer);
  CHECK(P.B.variableOf(JOuter) == J);
  CHECK(ops(P.B, IOuter) == std::vector<Value>{A, D});
  CHECK(ops(P.B, JInnerPhi) == std::vector<Value>{JOuter, C});
  CHECK(ops(P.B, JOuter) == std::vector<Value>{Bv, JInnerPhi});
  CHECK(P.B.resolve(IInExit) == IOuter);
  CHECK(P.B.resolve(JInExit) == JOuter);
  checkInvariants(P.B, P.Uses);
}

// entry: x = a; if (c) goto left else goto right
// left:  (entry, right) use x; if (...) goto right else goto exit
// right: (entry, left)  use x; goto left
// exit:  (left)         use x
// The loop has two entries. Neither left nor right redefines x, so the two
// phis merge only each other and a: locally nontrivial, a redundant cycle.
TEST_CASE("irreducible_cfg_is_minimal") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Left = P.block({Entry});
  Value XInLeft = P.use(X, Left);
  Block Right = P.block({Entry, Left});
  P.B.sealBlock(Right);
  Value XInRight = P.use(X, Right);
  P.B.addPredecessor(Left, Right);
  P.B.sealBlock(Left);
  Block Exit = P.block({Left});
  P.B.sealBlock(Exit);
  Value XInExit = P.use(X, Exit);

  // Before finish() both phis stand.
  CHECK(P.B.isPhi(P.B.resolve(XInLeft)));
  CHECK(P.B.isPhi(P.B.resolve(XInRight)));
  CHECK(P.B.resolve(XInLeft) != P.B.resolve(XInRight));
  P.B.finish();

  CHECK(P.B.phis().empty());
  CHECK(P.B.resolve(XInLeft) == A);
  CHECK(P.B.resolve(XInRight) == A);
  CHECK(P.B.resolve(XInExit) == A);
  checkInvariants(P.B, P.Uses);
}

// entry: x = a; if (c) goto left else goto right
// left:  (entry, right) use x; if (...) goto right else goto exit
// right: (entry, left)  x = b; goto left
// exit:  (left)         use x
// As above, but right redefines x: left's phi is a real merge of a and b.
TEST_CASE("irreducible_cfg_keeps_real_merges") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Left = P.block({Entry});
  Value XInLeft = P.use(X, Left);
  Block Right = P.block({Entry, Left});
  P.B.sealBlock(Right);
  Value Bv = P.def(X, Right);
  P.B.addPredecessor(Left, Right);
  P.B.sealBlock(Left);
  Block Exit = P.block({Left});
  P.B.sealBlock(Exit);
  Value XInExit = P.use(X, Exit);
  P.B.finish();

  REQUIRE(P.B.phis().size() == 1);
  Value Phi = P.B.phis()[0];
  CHECK(P.B.blockOf(Phi) == Left);
  CHECK(ops(P.B, Phi) == std::vector<Value>{A, Bv});
  CHECK(P.B.resolve(XInLeft) == Phi);
  CHECK(P.B.resolve(XInExit) == Phi);
  checkInvariants(P.B, P.Uses);
}

// entry: x = a
// loop:  (entry, cont, latch) use x; if (p) break
// body:  (loop)  if (q) continue
// mid:   (body)  x = b; if (r) break
// latch: (mid)   goto loop
// cont:  (body)  goto loop
// exit:  (loop, mid) use x
TEST_CASE("break_continue_shaped_cfg") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Loop = P.block({Entry});
  Value XInLoop = P.use(X, Loop);
  Block Body = P.block({Loop});
  P.B.sealBlock(Body);
  Block Mid = P.block({Body});
  P.B.sealBlock(Mid);
  Value Bv = P.def(X, Mid);
  Block Latch = P.block({Mid});
  P.B.sealBlock(Latch);
  Block Cont = P.block({Body});
  P.B.sealBlock(Cont);
  P.B.addPredecessor(Loop, Cont);
  P.B.addPredecessor(Loop, Latch);
  P.B.sealBlock(Loop);
  Block Exit = P.block({Loop, Mid});
  P.B.sealBlock(Exit);
  Value XInExit = P.use(X, Exit);
  P.B.finish();

  REQUIRE(P.B.phis().size() == 2);
  Value LoopPhi = P.B.phis()[0], ExitPhi = P.B.phis()[1];
  CHECK(LoopPhi == XInLoop);
  CHECK(P.B.blockOf(LoopPhi) == Loop);
  // continue carries the loop's own value around: an operand that is the
  // phi itself.
  CHECK(ops(P.B, LoopPhi) == std::vector<Value>{A, LoopPhi, Bv});
  CHECK(P.B.blockOf(ExitPhi) == Exit);
  CHECK(ops(P.B, ExitPhi) == std::vector<Value>{LoopPhi, Bv});
  CHECK(P.B.resolve(XInExit) == ExitPhi);
  checkInvariants(P.B, P.Uses);
}

// entry:  x = a; y = b
// header: (entry, latch) use x; use y       -- not sealed yet: incomplete phis
// latch:  (header)       y = c; goto header
TEST_CASE("unsealed_block_incomplete_phi") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry), Bv = P.def(Y, Entry);
  Block Header = P.block({Entry});
  Value XInHeader = P.use(X, Header), YInHeader = P.use(Y, Header);
  CHECK(P.B.isIncompletePhi(XInHeader));
  CHECK(P.B.phiOperands(XInHeader).empty());
  CHECK(P.B.blockOf(XInHeader) == Header);
  CHECK(P.B.variableOf(XInHeader) == X);
  // A second read finds the incomplete phi recorded as the definition.
  CHECK(P.use(X, Header) == XInHeader);
  Block Latch = P.block({Header});
  P.B.sealBlock(Latch);
  CHECK(P.use(X, Latch) == XInHeader);
  Value C = P.def(Y, Latch);
  P.B.addPredecessor(Header, Latch);
  P.B.sealBlock(Header);

  // Sealing gave x's phi (a, itself): trivial, replaced by a at once.
  CHECK(P.B.isRemoved(XInHeader));
  CHECK(P.B.resolve(XInHeader) == A);
  CHECK_FALSE(P.B.isIncompletePhi(YInHeader));
  CHECK(ops(P.B, YInHeader) == std::vector<Value>{Bv, C});
  P.B.finish();
  REQUIRE(P.B.phis().size() == 1);
  CHECK(P.B.phis()[0] == YInHeader);
  checkInvariants(P.B, P.Uses);
}

// entry: x = a
// outer: (entry, latch)        -- sealed last
// inner: (outer, innerBody)    -- sealed after merge has read x
// merge: (outer, inner) use x  -- phi(outer's phi, inner's phi): both are
//                                 incomplete, so it looks like a real merge
// innerBody: (inner) goto inner
// latch: (merge) goto outer
// Sealing inner removes its phi, whose user, merge's phi, becomes trivial in
// turn; sealing outer then removes outer's phi, which all of them now name.
TEST_CASE("trivial_phi_chain_removed_via_users") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Outer = P.block({Entry});
  Block Inner = P.block({Outer});
  Block Merge = P.block({Outer, Inner});
  P.B.sealBlock(Merge);
  Value XInMerge = P.use(X, Merge);
  REQUIRE(P.B.isPhi(XInMerge));
  std::vector<Value> MergeOps = ops(P.B, XInMerge);
  REQUIRE(MergeOps.size() == 2);
  Value OuterPhi = MergeOps[0], InnerPhi = MergeOps[1];
  CHECK(P.B.isIncompletePhi(OuterPhi));
  CHECK(P.B.isIncompletePhi(InnerPhi));
  CHECK(P.B.blockOf(OuterPhi) == Outer);
  CHECK(P.B.blockOf(InnerPhi) == Inner);

  Block InnerBody = P.block({Inner});
  P.B.sealBlock(InnerBody);
  P.B.addPredecessor(Inner, InnerBody);
  P.B.sealBlock(Inner);
  CHECK(P.B.isRemoved(InnerPhi));
  CHECK(P.B.isRemoved(XInMerge));
  CHECK(P.B.resolve(XInMerge) == OuterPhi);

  Block Latch = P.block({Merge});
  P.B.sealBlock(Latch);
  P.B.addPredecessor(Outer, Latch);
  P.B.sealBlock(Outer);
  CHECK(P.B.isRemoved(OuterPhi));
  CHECK(P.B.resolve(XInMerge) == A);
  P.B.finish();
  CHECK(P.B.phis().empty());
  checkInvariants(P.B, P.Uses);
}

// b0: x = a
// b1 .. b99999: (previous block) use y
// b99999: use x; tryUse z (never defined)
// One read walks all 100 000 blocks; no recursion may follow the chain.
TEST_CASE("chain_of_100000_blocks") {
  constexpr unsigned N = 100000;
  auto Start = std::chrono::steady_clock::now();
  Program P;
  std::vector<Block> Blocks{P.block()};
  P.B.sealBlock(Blocks[0]);
  Value A = P.def(X, Blocks[0]);
  Value Bv = P.def(Y, Blocks[0]);
  for (unsigned I = 1; I < N; ++I) {
    Blocks.push_back(P.block({Blocks.back()}));
    P.B.sealBlock(Blocks.back());
    P.use(Y, Blocks.back());
  }
  Value XAtEnd = P.use(X, Blocks.back());
  CHECK_FALSE(P.B.tryUseVar(Z, Blocks.back()).has_value());
  Value ZAtEnd = P.use(Z, Blocks.back());
  // The walk recorded x in every block it passed, so this is one step.
  Value XInMiddle = P.use(X, Blocks[N / 2]);
  P.B.finish();
  double Seconds = secondsSince(Start);

  CHECK(P.B.phis().empty());
  CHECK(XAtEnd == A);
  CHECK(XInMiddle == A);
  for (Value U : llvm::ArrayRef<Value>(P.Uses).take_front(N - 1))
    REQUIRE(U == Bv);
  CHECK(P.B.isUndef(ZAtEnd));
  CHECK(P.B.blockOf(ZAtEnd) == Blocks[0]);
  MESSAGE("chain of " << N << " blocks: " << Seconds << " s");
  checkInvariants(P.B, P.Uses);
}

// entry: x = a; y = b
// loop 1: h1 (entry, exit2)
//   loop 2: h2 (h1, exit3)
//     ...
//       loop 10000: h10000 (h9999, h10000) use x; y = c
//     exitK: (hK) goto h(K-1)
// exit1: (h1) use x; use y
// x needs no phi anywhere; y needs one in every header but the innermost.
TEST_CASE("ten_thousand_nested_loops") {
  constexpr unsigned N = 10000;
  auto Start = std::chrono::steady_clock::now();
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry), Bv = P.def(Y, Entry);
  std::vector<Block> Headers;
  for (unsigned I = 0; I < N; ++I)
    Headers.push_back(P.block({I == 0 ? Entry : Headers.back()}));
  Block Innermost = Headers.back();
  Value XInnermost = P.use(X, Innermost);
  Value C = P.def(Y, Innermost);
  P.B.addPredecessor(Innermost, Innermost);
  P.B.sealBlock(Innermost);
  for (unsigned I = N - 1; I-- > 0;) {
    Block Exit = P.block({Headers[I + 1]});
    P.B.sealBlock(Exit);
    P.B.addPredecessor(Headers[I], Exit);
    P.B.sealBlock(Headers[I]);
  }
  Block OuterExit = P.block({Headers[0]});
  P.B.sealBlock(OuterExit);
  Value XAtEnd = P.use(X, OuterExit);
  Value YAtEnd = P.use(Y, OuterExit);
  P.B.finish();
  double Seconds = secondsSince(Start);

  CHECK(P.B.resolve(XInnermost) == A);
  CHECK(P.B.resolve(XAtEnd) == A);
  REQUIRE(P.B.phis().size() == N - 1);
  // Headers 0 .. N-2 each merge the value from outside with the value
  // coming back from the loop nested in it.
  Value Outermost = P.B.resolve(YAtEnd);
  CHECK(P.B.blockOf(Outermost) == Headers[0]);
  auto IsPhiIn = [&](Value V, unsigned Depth) {
    return P.B.isPhi(V) && P.B.blockOf(V) == Headers[Depth];
  };
  unsigned Wrong = 0;
  for (Value Phi : P.B.phis()) {
    unsigned Depth = P.B.blockOf(Phi).Id - Headers[0].Id;
    std::vector<Value> Ops = ops(P.B, Phi);
    bool Ok = P.B.variableOf(Phi) == Y && Ops.size() == 2 &&
              (Depth == 0 ? Ops[0] == Bv : IsPhiIn(Ops[0], Depth - 1)) &&
              (Depth == N - 2 ? Ops[1] == C : IsPhiIn(Ops[1], Depth + 1));
    Wrong += !Ok;
  }
  CHECK(Wrong == 0);
  MESSAGE(N << " nested loops: " << Seconds << " s");
  checkInvariants(P.B, P.Uses);
}

// entry:  v = c_v for 1000 variables with sparse ids 7k+3
// header: (entry, merge)
// then:   (header) v = f(v) for every even k
// else:   (header)
// merge:  (then, else) use every v; goto header
TEST_CASE("many_variables") {
  constexpr unsigned K = 1000;
  auto Var = [](unsigned I) { return Variable{7 * I + 3}; };
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  std::vector<Value> Initial, Updated(K);
  for (unsigned I = 0; I < K; ++I)
    Initial.push_back(P.def(Var(I), Entry));
  Block Header = P.block({Entry});
  Block Then = P.block({Header}), Else = P.block({Header});
  P.B.sealBlock(Then);
  P.B.sealBlock(Else);
  for (unsigned I = 0; I < K; I += 2) {
    P.use(Var(I), Then);
    Updated[I] = P.def(Var(I), Then);
  }
  Block Merge = P.block({Then, Else});
  P.B.sealBlock(Merge);
  std::vector<Value> InMerge;
  for (unsigned I = 0; I < K; ++I)
    InMerge.push_back(P.use(Var(I), Merge));
  P.B.addPredecessor(Header, Merge);
  P.B.sealBlock(Header);
  P.B.finish();

  // An even variable has a phi in header (initial, merge's phi) and one in
  // merge (updated, header's phi); an odd one has none.
  CHECK(P.B.phis().size() == K);
  unsigned Wrong = 0;
  for (unsigned I = 0; I < K; ++I) {
    Value V = P.B.resolve(InMerge[I]);
    if (I % 2) {
      Wrong += V != Initial[I];
      continue;
    }
    if (!P.B.isPhi(V) || P.B.blockOf(V) != Merge) {
      ++Wrong;
      continue;
    }
    std::vector<Value> MergeOps = ops(P.B, V);
    Value HeaderPhi = MergeOps[1];
    Wrong += MergeOps[0] != Updated[I] || !P.B.isPhi(HeaderPhi) ||
             P.B.blockOf(HeaderPhi) != Header ||
             P.B.variableOf(HeaderPhi) != Var(I) ||
             ops(P.B, HeaderPhi) != std::vector<Value>{Initial[I], V};
  }
  CHECK(Wrong == 0);
  checkInvariants(P.B, P.Uses);
}

// entry:  x = a
// header: (entry, latch)  use x; if (p) goto d else goto left
// d:      (header)        x = c; goto latch
// left:   (header, right) use x; if (q) goto right else goto latch
// right:  (header, left)  use x; goto left
// latch:  (d, left)       use x; goto header
// The phis of left and right form a cycle that merges only header's phi,
// while header's and latch's are real merges of a and c; all four are one
// SCC with two outside operands, so only its inner part may go.
TEST_CASE("irreducible_region_inside_loop_merges_one_phi") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Header = P.block({Entry});
  Block D = P.block({Header});
  P.B.sealBlock(D);
  Value C = P.def(X, D);
  Block Left = P.block({Header});
  Value XInLeft = P.use(X, Left);
  Block Right = P.block({Header, Left});
  P.B.sealBlock(Right);
  Value XInRight = P.use(X, Right);
  P.B.addPredecessor(Left, Right);
  P.B.sealBlock(Left);
  Block Latch = P.block({D, Left});
  P.B.sealBlock(Latch);
  Value XInLatch = P.use(X, Latch);
  P.B.addPredecessor(Header, Latch);
  P.B.sealBlock(Header);
  CHECK(P.B.isPhi(P.B.resolve(XInLeft)));
  CHECK(P.B.isPhi(P.B.resolve(XInRight)));
  P.B.finish();

  REQUIRE(P.B.phis().size() == 2);
  Value LatchPhi = P.B.resolve(XInLatch);
  REQUIRE(P.B.isPhi(LatchPhi));
  CHECK(P.B.blockOf(LatchPhi) == Latch);
  std::vector<Value> LatchOps = ops(P.B, LatchPhi);
  REQUIRE(LatchOps.size() == 2);
  Value HeaderPhi = LatchOps[1];
  CHECK(LatchOps[0] == C);
  CHECK(P.B.isPhi(HeaderPhi));
  CHECK(P.B.blockOf(HeaderPhi) == Header);
  CHECK(ops(P.B, HeaderPhi) == std::vector<Value>{A, LatchPhi});
  CHECK(P.B.resolve(XInLeft) == HeaderPhi);
  CHECK(P.B.resolve(XInRight) == HeaderPhi);
  checkInvariants(P.B, P.Uses);
}

// entry: x = a; return
// dead:  ()          use x           -- code after the return
// u1:    (u2, u3)    use x           -- a cycle nothing enters
// u2:    (u1, u3)
// u3:    (u1, u2)
// s1:    (s2)        use x           -- a cycle of single predecessors
// s2:    (s1)
TEST_CASE("unreachable_code_reads_undef") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  P.def(X, Entry);
  Block Dead = P.block();
  P.B.sealBlock(Dead);
  Block U1 = P.block(), U2 = P.block(), U3 = P.block();
  P.B.addPredecessor(U1, U2);
  P.B.addPredecessor(U1, U3);
  P.B.addPredecessor(U2, U1);
  P.B.addPredecessor(U2, U3);
  P.B.addPredecessor(U3, U1);
  P.B.addPredecessor(U3, U2);
  Block S1 = P.block(), S2 = P.block();
  P.B.addPredecessor(S1, S2);
  P.B.addPredecessor(S2, S1);
  P.B.sealAllBlocks();

  unsigned ValuesBefore = P.B.numValues();
  CHECK_FALSE(P.B.tryUseVar(X, Dead).has_value());
  CHECK_FALSE(P.B.tryUseVar(X, U1).has_value());
  CHECK_FALSE(P.B.tryUseVar(X, S1).has_value());
  CHECK(P.B.numValues() == ValuesBefore);

  Value InDead = P.use(X, Dead);
  CHECK(P.B.isUndef(InDead));
  CHECK(P.B.blockOf(InDead) == Dead);
  Value InS1 = P.use(X, S1);
  CHECK(P.B.isUndef(InS1));
  CHECK(P.B.blockOf(InS1) == S1);
  // Locally the three phis of u1, u2, u3 look like merges.
  Value InU1 = P.use(X, U1);
  CHECK(P.B.isPhi(InU1));
  P.B.finish();

  CHECK(P.B.phis().empty());
  Value U = P.B.resolve(InU1);
  CHECK(P.B.isUndef(U));
  CHECK(P.B.blockOf(U) == U1);
  CHECK(P.B.variableOf(U) == X);
  checkInvariants(P.B, P.Uses);
}

// entry: i = 0; x = a; y undefined
// cond:  (entry, inc)  use i; use x; use y; goto body or end
// body:  (cond)        goto end                 -- `break`: inc is unreachable
// inc:   ()            use i; i = i + 1; y = b; goto cond
// end:   (cond, body)  use x
// With inc marked unreachable, its edge carries no value: no phi in cond,
// i and x are their entry values, and y stays undefined from the entry.
TEST_CASE("edge_from_unreachable_latch_carries_no_value") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value I0 = P.def(X, Entry), A = P.def(Y, Entry);
  Block Cond = P.block({Entry});
  Block Body = P.block({Cond});
  Block Inc = P.block();
  P.B.markUnreachable(Inc);
  P.B.sealBlock(Inc);
  Value IInCond = P.use(X, Cond), XInCond = P.use(Y, Cond);
  Value ZInCond = P.use(Z, Cond);
  P.B.sealBlock(Body);
  Value IInInc = P.use(X, Inc);
  CHECK(P.B.isNoValue(IInInc));
  P.def(X, Inc);
  P.def(Z, Inc);
  CHECK(P.B.isNoValue(P.B.resolve(IInInc)));
  P.B.addPredecessor(Cond, Inc);
  P.B.sealBlock(Cond);
  Block End = P.block({Cond, Body});
  P.B.sealBlock(End);
  Value XInEnd = P.use(Y, End);
  CHECK(P.B.tryUseVar(Y, End).has_value());
  CHECK_FALSE(P.B.tryUseVar(Z, End).has_value());
  P.B.finish();

  CHECK(P.B.phis().empty());
  CHECK(P.B.resolve(IInCond) == I0);
  CHECK(P.B.resolve(XInCond) == A);
  CHECK(P.B.resolve(XInEnd) == A);
  Value Z0 = P.B.resolve(ZInCond);
  CHECK(P.B.isUndef(Z0));
  CHECK_FALSE(P.B.isNoValue(Z0));
  CHECK(P.B.blockOf(Z0) == Entry);
  checkInvariants(P.B, P.Uses);
}

// entry: x = a; switch (k) { case 0: case 1: goto merge; default: goto other }
// other: (entry)               x = b; goto merge
// merge: (entry, entry, other) use x
TEST_CASE("duplicate_edge_gives_two_operands") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(X, Entry);
  Block Other = P.block({Entry});
  P.B.sealBlock(Other);
  Value Bv = P.def(X, Other);
  Block Merge = P.block({Entry, Entry, Other});
  P.B.sealBlock(Merge);
  Value XInMerge = P.use(X, Merge);
  P.B.finish();

  REQUIRE(P.B.phis().size() == 1);
  CHECK(P.B.phis()[0] == XInMerge);
  CHECK(ops(P.B, XInMerge) == std::vector<Value>{A, A, Bv});
  checkInvariants(P.B, P.Uses);
}

// entry:  y = a
// header: (entry, body) tryUse x; tryUse y    -- header not sealed yet
// body:   (header)      x = b; goto header
// exit:   (header)      tryUse x; tryUse y
TEST_CASE("try_use_before_definition_in_loop") {
  Program P;
  Block Entry = P.block();
  P.B.sealBlock(Entry);
  Value A = P.def(Y, Entry);
  Block Header = P.block({Entry});
  // x: undefined on the way in, whatever the back edge brings later.
  CHECK_FALSE(P.B.tryUseVar(X, Header).has_value());
  // y: defined on the way in; the back edge is presumed to define it too.
  std::optional<Value> YInHeader = P.B.tryUseVar(Y, Header);
  REQUIRE(YInHeader.has_value());
  CHECK(P.B.isIncompletePhi(*YInHeader));
  Block Body = P.block({Header});
  P.B.sealBlock(Body);
  P.def(X, Body);
  P.B.addPredecessor(Header, Body);
  P.B.sealBlock(Header);
  Block Exit = P.block({Header});
  P.B.sealBlock(Exit);
  // Leaving before the first iteration leaves x undefined.
  CHECK_FALSE(P.B.tryUseVar(X, Exit).has_value());
  std::optional<Value> YInExit = P.B.tryUseVar(Y, Exit);
  REQUIRE(YInExit.has_value());
  CHECK(*YInExit == A);
  P.Uses.push_back(*YInHeader);
  P.B.finish();

  CHECK(P.B.phis().empty());
  CHECK(P.B.resolve(*YInHeader) == A);
  checkInvariants(P.B, P.Uses);
}

namespace {

/// A random program: blocks with definitions and uses in order, and edges
/// added as each block's terminator is emitted (in block order). Every
/// block but the entry has a predecessor before it, so all are reachable;
/// the other edges go anywhere, which makes many graphs irreducible.
struct RandomProgram {
  struct Op {
    bool IsDef;
    uint32_t Var;
  };
  unsigned NumVars;
  std::vector<std::vector<Op>> Ops;
  std::vector<std::vector<unsigned>> Succs; // in edge order
  std::vector<std::vector<unsigned>> Preds;

  explicit RandomProgram(std::mt19937 &Rng) {
    unsigned NumBlocks = 2 + Rng() % 15;
    NumVars = 1 + Rng() % 3;
    Ops.resize(NumBlocks);
    Succs.resize(NumBlocks);
    Preds.resize(NumBlocks);
    std::vector<std::pair<unsigned, unsigned>> Edges;
    for (unsigned Dst = 1; Dst < NumBlocks; ++Dst)
      Edges.emplace_back(Rng() % Dst, Dst);
    for (unsigned I = Rng() % (NumBlocks + 2); I > 0; --I) {
      // Two statements: the order of evaluating arguments is unspecified,
      // and every compiler must make the same programs from one seed.
      unsigned Src = Rng() % NumBlocks;
      Edges.emplace_back(Src, 1 + Rng() % (NumBlocks - 1));
    }
    std::stable_sort(Edges.begin(), Edges.end(),
                     [](auto L, auto R) { return L.first < R.first; });
    for (auto [Src, Dst] : Edges) {
      Succs[Src].push_back(Dst);
      Preds[Dst].push_back(Src);
    }
    for (auto &BlockOps : Ops)
      for (unsigned I = Rng() % 5; I > 0; --I)
        BlockOps.push_back(Op{Rng() % 2 == 0, uint32_t(Rng() % NumVars)});
  }
};

constexpr uint32_t UndefLeaf = ~0u;
using LeafSet = std::set<uint32_t>;

/// The client values (and UndefLeaf for undefs) that V merges, through
/// phis whose operands are final.
LeafSet leavesOf(const SSABuilder &B, Value V) {
  LeafSet Leaves;
  std::set<uint32_t> Seen{V.Id};
  std::vector<Value> Stack{V};
  while (!Stack.empty()) {
    Value Cur = Stack.back();
    Stack.pop_back();
    if (!B.isPhi(Cur)) {
      Leaves.insert(B.isUndef(Cur) ? UndefLeaf : Cur.Id);
      continue;
    }
    for (Value Op : B.phiOperands(Cur))
      if (Seen.insert(Op.Id).second)
        Stack.push_back(Op);
  }
  return Leaves;
}

/// Whether some value C other than Phi lies on every operand path from Phi
/// to a non-phi value: then Phi is part of a set of phis that references
/// only itself and C, which finish() must have removed.
bool isRedundant(const SSABuilder &B, Value Phi) {
  std::set<uint32_t> Closure;
  std::vector<Value> Stack{Phi};
  while (!Stack.empty()) {
    Value Cur = Stack.back();
    Stack.pop_back();
    if (!Closure.insert(Cur.Id).second || !B.isPhi(Cur))
      continue;
    for (Value Op : B.phiOperands(Cur))
      Stack.push_back(Op);
  }
  for (uint32_t C : Closure) {
    if (C == Phi.Id)
      continue;
    std::set<uint32_t> Seen{Phi.Id, C};
    bool ReachesLeaf = false;
    Stack.assign(1, Phi);
    while (!Stack.empty() && !ReachesLeaf) {
      Value Cur = Stack.back();
      Stack.pop_back();
      for (Value Op : B.phiOperands(Cur)) {
        if (!Seen.insert(Op.Id).second)
          continue;
        if (!B.isPhi(Op))
          ReachesLeaf = true;
        else
          Stack.push_back(Op);
      }
    }
    if (!ReachesLeaf)
      return true;
  }
  return false;
}

/// Builds RP through the builder, checks every answer against reaching
/// definitions computed by plain dataflow, and returns a trace of the
/// result (phis, their operands, resolved uses) for the determinism test.
std::vector<uint32_t> runRandomProgram(const RandomProgram &RP,
                                       std::mt19937 &Rng) {
  unsigned NumBlocks = unsigned(RP.Ops.size());
  Program P;
  std::vector<Block> Blocks;
  for (unsigned I = 0; I < NumBlocks; ++I)
    Blocks.push_back(P.B.declareBlock());
  std::vector<unsigned> MissingPreds(NumBlocks);
  for (unsigned I = 0; I < NumBlocks; ++I)
    MissingPreds[I] = unsigned(RP.Preds[I].size());
  P.B.sealBlock(Blocks[0]);

  struct UseSite {
    unsigned Block, OpIndex;
    Value V;
  };
  std::vector<UseSite> UseSites;
  std::vector<std::pair<unsigned, unsigned>> UndefinedTries; // block, op
  std::vector<std::vector<Value>> DefValues(NumBlocks);
  for (unsigned Bl = 0; Bl < NumBlocks; ++Bl) {
    for (unsigned K = 0; K < RP.Ops[Bl].size(); ++K) {
      auto [IsDef, Var] = RP.Ops[Bl][K];
      if (IsDef) {
        DefValues[Bl].push_back(P.def(Variable{Var}, Blocks[Bl]));
        continue;
      }
      DefValues[Bl].push_back(Value{UndefLeaf});
      if (Rng() % 3 == 0) {
        std::optional<Value> V = P.B.tryUseVar(Variable{Var}, Blocks[Bl]);
        if (!V) {
          UndefinedTries.emplace_back(Bl, K);
          continue;
        }
        P.Uses.push_back(*V);
        UseSites.push_back(UseSite{Bl, K, *V});
        continue;
      }
      UseSites.push_back(UseSite{Bl, K, P.use(Variable{Var}, Blocks[Bl])});
    }
    for (unsigned Dst : RP.Succs[Bl]) {
      P.B.addPredecessor(Blocks[Dst], Blocks[Bl]);
      --MissingPreds[Dst];
    }
    // Seal some blocks as soon as they may be, leave others for later, so
    // both incomplete and immediate phis are exercised.
    for (unsigned D = 1; D < NumBlocks; ++D)
      if (MissingPreds[D] == 0 && !P.B.isSealed(Blocks[D]) && Rng() % 2)
        P.B.sealBlock(Blocks[D]);
  }
  P.B.sealAllBlocks();

  // Reaching definitions, the slow way.
  using VarSets = std::vector<LeafSet>;
  std::vector<VarSets> In(NumBlocks, VarSets(RP.NumVars)),
      Out(NumBlocks, VarSets(RP.NumVars));
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned Bl = 0; Bl < NumBlocks; ++Bl)
      for (uint32_t Var = 0; Var < RP.NumVars; ++Var) {
        LeafSet NewIn;
        if (Bl == 0)
          NewIn.insert(UndefLeaf);
        for (unsigned Pred : RP.Preds[Bl])
          NewIn.insert(Out[Pred][Var].begin(), Out[Pred][Var].end());
        LeafSet NewOut = NewIn;
        for (unsigned K = 0; K < RP.Ops[Bl].size(); ++K)
          if (RP.Ops[Bl][K].IsDef && RP.Ops[Bl][K].Var == Var)
            NewOut = LeafSet{DefValues[Bl][K].Id};
        Changed |= NewIn != In[Bl][Var] || NewOut != Out[Bl][Var];
        In[Bl][Var] = std::move(NewIn);
        Out[Bl][Var] = std::move(NewOut);
      }
  }
  auto Expected = [&](unsigned Bl, unsigned K) {
    uint32_t Var = RP.Ops[Bl][K].Var;
    LeafSet Set = In[Bl][Var];
    for (unsigned J = 0; J < K; ++J)
      if (RP.Ops[Bl][J].IsDef && RP.Ops[Bl][J].Var == Var)
        Set = LeafSet{DefValues[Bl][J].Id};
    return Set;
  };

  // Undefined on some path when tryUseVar said so (it may miss paths
  // through edges not added yet, but must never invent one).
  for (auto [Bl, K] : UndefinedTries)
    CHECK(Expected(Bl, K).count(UndefLeaf) == 1);
  // Once everything is known, tryUseVar is exact.
  std::vector<std::pair<unsigned, uint32_t>> EndSites;
  for (unsigned Bl = 0; Bl < NumBlocks; ++Bl)
    for (uint32_t Var = 0; Var < RP.NumVars; ++Var) {
      std::optional<Value> V = P.B.tryUseVar(Variable{Var}, Blocks[Bl]);
      CHECK(V.has_value() == (Out[Bl][Var].count(UndefLeaf) == 0));
      P.Uses.push_back(V ? *V : P.B.useVar(Variable{Var}, Blocks[Bl]));
      EndSites.emplace_back(Bl, Var);
    }
  P.B.finish();

  std::vector<uint32_t> Trace;
  auto CheckUse = [&](Value V, const LeafSet &Want) {
    Value R = P.B.resolve(V);
    CHECK(leavesOf(P.B, R) == Want);
    if (Want.size() == 1 && *Want.begin() != UndefLeaf)
      CHECK(R.Id == *Want.begin());
    if (Want == LeafSet{UndefLeaf})
      CHECK(P.B.isUndef(R));
    Trace.push_back(R.Id);
  };
  for (const UseSite &U : UseSites)
    CheckUse(U.V, Expected(U.Block, U.OpIndex));
  for (size_t I = 0; I < EndSites.size(); ++I)
    CheckUse(P.Uses[P.Uses.size() - EndSites.size() + I],
             Out[EndSites[I].first][EndSites[I].second]);
  for (Value Phi : P.B.phis()) {
    CHECK_FALSE(isRedundant(P.B, Phi));
    Trace.push_back(Phi.Id);
    Trace.push_back(P.B.blockOf(Phi).Id);
    Trace.push_back(P.B.variableOf(Phi).Id);
    for (Value Op : P.B.phiOperands(Phi))
      Trace.push_back(Op.Id);
  }
  checkInvariants(P.B, P.Uses);
  return Trace;
}

} // namespace

// 3000 random programs over random, often irreducible, control flow: every
// use must merge exactly the definitions that reach it, be that definition
// when only one does, and no surviving phi may merge just one value.
TEST_CASE("random_cfgs_match_reaching_definitions") {
  std::mt19937 Rng(20130316);
  for (unsigned Case = 0; Case < 3000; ++Case) {
    CAPTURE(Case);
    RandomProgram RP(Rng);
    runRandomProgram(RP, Rng);
  }
}

// The same calls, made twice, give the same phis with the same operands and
// the same answers to every use.
TEST_CASE("same_calls_same_phis") {
  std::mt19937 ProgramRng(7);
  for (unsigned Case = 0; Case < 50; ++Case) {
    RandomProgram RP(ProgramRng);
    std::mt19937 First(Case), Second(Case);
    CHECK(runRandomProgram(RP, First) == runRandomProgram(RP, Second));
  }
}

namespace {

/// The lines of Text from the one after the line containing Begin to the one
/// before the line containing End, trimmed, leaving out blank lines and
/// those starting with one of Skip.
std::vector<std::string> linesBetween(const std::string &Text,
                                      const std::string &Begin,
                                      const std::string &End,
                                      std::vector<std::string> Skip = {}) {
  std::vector<std::string> Lines;
  std::istringstream In(Text);
  bool Inside = false;
  for (std::string Line; std::getline(In, Line);) {
    if (!Inside) {
      Inside = Line.find(Begin) != std::string::npos;
      continue;
    }
    if (Line.find(End) != std::string::npos)
      break;
    size_t First = Line.find_first_not_of(' ');
    if (First == std::string::npos)
      continue;
    Line = Line.substr(First, Line.find_last_not_of(' ') + 1 - First);
    bool Skipped = false;
    for (const std::string &S : Skip)
      Skipped |= Line.rfind(S, 0) == 0;
    if (!Skipped)
      Lines.push_back(Line);
  }
  return Lines;
}

std::string readFile(const char *Path) {
  std::ifstream In(Path);
  std::ostringstream Out;
  Out << In.rdbuf();
  return Out.str();
}

} // namespace

// The example of README.md, run as it is written there.
TEST_CASE("readme_example") {
  auto MakePhi = [](Block, Variable, llvm::ArrayRef<Value>) {
    FAIL("the example has no phi to make");
  };
  // README example begin
  SSABuilder B;
  Block Entry = B.declareBlock();       B.sealBlock(Entry);  // no predecessors, ever
  Value A = B.createValue();            B.defVar(Variable{0}, A, Entry);
  Block Loop = B.declareBlock();        B.addPredecessor(Loop, Entry);
  Value X = B.useVar(Variable{0}, Loop);          // an incomplete phi: Loop is not sealed
  B.addPredecessor(Loop, Loop);         B.sealBlock(Loop);  // completes it: phi(a, itself) is trivial
  std::optional<Value> Y = B.tryUseVar(Variable{1}, Loop); // nullopt: undefined on a path
  B.finish();                           // removes redundant phi cycles; needs all blocks sealed
  for (Value Phi : B.phis())            // none here; MakePhi is the client's
    MakePhi(B.blockOf(Phi), B.variableOf(Phi), B.phiOperands(Phi));
  Value Final = B.resolve(X);           // == A
  // README example end
  CHECK(Final == A);
  CHECK_FALSE(Y.has_value());
  CHECK(B.phis().empty());
  checkInvariants(B, {X});

  // The markers are spelled in two pieces so that these lines do not match.
  std::vector<std::string> Here = linesBetween(
      readFile(__FILE__), std::string("README example ") + "begin",
      std::string("README example ") + "end");
  std::vector<std::string> Readme =
      linesBetween(readFile(LLQ_SSA_SOURCE_DIR "/README.md"), "```cpp", "```",
                   {"#include", "using namespace"});
  CHECK(Here.size() == 11);
  CHECK(Here == Readme);
}
