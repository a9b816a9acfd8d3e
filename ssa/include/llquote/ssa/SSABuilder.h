//===- SSABuilder.h - Braun et al. SSA construction -------------*- C++ -*-===//
//
// An IR-independent builder of SSA form after Braun, Buchwald, Hack, Leißa,
// Mallon and Zwinkau, "Simple and Efficient Construction of Static Single
// Assignment Form", CC 2013. A block is *filled* once the client has made
// every definition and use in it, so its successors may read the values live
// at its end; a block is *sealed* once it will get no more predecessors, so a
// read that reaches it can ask all of them instead of leaving an incomplete
// phi behind to be finished when the block is sealed.
//
// The client describes its control-flow graph (blocks and predecessor edges),
// the definitions of its variables and, in program order, their uses. Each
// use is answered at once with a Value; phis are created on demand, trivial
// ones are removed as soon as they are seen to be trivial, and finish()
// removes the redundant phi cycles that local reasoning cannot see (section
// 3.2 of the paper), so the phis that survive are minimal even for
// irreducible control flow. The builder owns no IR: the client materialises
// the surviving phis itself and maps every Value it holds through resolve().
//
// Requires: blocks are filled before a successor reads through them, and
// sealed before finish(). Produces: a Value for every use, and after
// finish() the list of surviving phis with their final operands.
// Nothing here recurses on the size of the input: reads, the removal of
// trivial phis and the cycle removal all run on explicit worklists.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SSA_SSABUILDER_H
#define LLQUOTE_SSA_SSABUILDER_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <memory>
#include <optional>

namespace llq::ssa {

/// A basic block of the client's control-flow graph, numbered from 0 in the
/// order of declareBlock() calls.
struct Block {
  uint32_t Id;
  friend bool operator==(Block L, Block R) { return L.Id == R.Id; }
  friend bool operator!=(Block L, Block R) { return L.Id != R.Id; }
};

/// A variable of the client's source program. The client chooses the
/// numbers (any but UINT32_MAX); they need not be dense.
struct Variable {
  uint32_t Id;
  friend bool operator==(Variable L, Variable R) { return L.Id == R.Id; }
  friend bool operator!=(Variable L, Variable R) { return L.Id != R.Id; }
};

/// A value the builder knows: one the client created, a phi or an undef.
/// Values are numbered from 0 in creation order, whatever their kind, so a
/// client can map them to its own IR with a vector of numValues() entries.
struct Value {
  uint32_t Id;
  friend bool operator==(Value L, Value R) { return L.Id == R.Id; }
  friend bool operator!=(Value L, Value R) { return L.Id != R.Id; }
};

/// Builds SSA form for one function. Misuse (an unknown block, a second seal,
/// a definition in a filled block, ...) is caught by assertions. The
/// const queries are not safe to call from several threads at once, because
/// resolve() shortens the replacement chains it walks.
class SSABuilder {
public:
  SSABuilder();
  ~SSABuilder();
  SSABuilder(SSABuilder &&) noexcept;
  SSABuilder &operator=(SSABuilder &&) noexcept;

  /// \name The control-flow graph
  /// @{
  Block declareBlock();
  /// Adds the edge Pred -> B. The order of these calls for B is the order of
  /// the operands of B's phis; an edge may be added twice (a switch with two
  /// cases to one block) and then gives a phi two operands. B must not be
  /// sealed.
  void addPredecessor(Block B, Block Pred);
  /// Promises that B gets no more predecessors, and completes the phis that
  /// reads left incomplete in B.
  void sealBlock(Block B);
  /// Seals every block that is not sealed yet, in declaration order.
  void sealAllBlocks();
  /// Declares that no path from the function's entry reaches B, before any
  /// read passes through it. An edge out of B is never taken, so it carries
  /// no value (isNoValue): a phi ignores such operands when it is judged
  /// trivial, and a read in B sees only the definitions made in B itself, so
  /// no phi is ever placed in unreachable code. Without this, a sealed block
  /// with no predecessors is a root like the entry, where a variable is
  /// undefined rather than of no concern.
  void markUnreachable(Block B);
  bool isUnreachable(Block B) const;
  unsigned numBlocks() const;
  llvm::ArrayRef<Block> predecessors(Block B) const;
  bool isSealed(Block B) const;
  /// @}

  /// \name Definitions and uses
  /// @{
  /// A fresh value standing for something the client computes: an
  /// instruction's result, a parameter, a constant.
  Value createValue();
  /// Makes Val the value of Var at the current end of B. B must not be
  /// filled yet: no read from a successor may have passed through it.
  void defVar(Variable Var, Value Val, Block B);
  /// The value of Var at the current end of B: the last definition in B if
  /// there is one, otherwise the value merged over B's predecessors. A path
  /// on which Var is never defined contributes an undef value (see isUndef).
  Value useVar(Variable Var, Block B);
  /// Like useVar, but returns std::nullopt, changing nothing, when Var is
  /// undefined on some path to the current end of B: a path, over the edges
  /// added so far, that starts at a sealed block without predecessors (the
  /// entry, or an unreachable block) and defines Var nowhere, or a region no
  /// such block reaches at all. A block not sealed yet counts as defined
  /// through the predecessors it has still to get. When edges are added as
  /// the branches that make them are emitted and blocks are visited in
  /// reverse postorder of a reducible graph, the only edges still missing
  /// are back edges, which cannot make a variable undefined, and the answer
  /// is final; otherwise the undef operands of the phis that finish()
  /// reports are the final word.
  std::optional<Value> tryUseVar(Variable Var, Block B);
  /// @}

  /// \name Queries, valid during and after construction
  /// @{
  unsigned numValues() const;
  /// Follows the replacements of removed phis to the value V now stands for,
  /// which is never a removed phi. Values the client holds must be mapped
  /// through this after finish(): removal happens after they were returned.
  Value resolve(Value V) const;
  /// Whether V was created as a phi; it may have been removed since.
  bool isPhi(Value V) const;
  /// Whether V is an undef: the value of a variable on a path that never
  /// defines it. Every undef has its own Value; blockOf() and variableOf()
  /// tell where the variable was found undefined, for a diagnostic such as
  /// "variable may be used undefined on the path through block B".
  bool isUndef(Value V) const;
  /// Whether V is the undef of unreachable code: what an edge out of a block
  /// marked unreachable carries, a read in such a block finds before any
  /// definition there, or a phi of nothing but itself stands for. No path
  /// from the entry ever sees it, so it is no error and any value will do.
  /// Every such V is also isUndef().
  bool isNoValue(Value V) const;
  /// Whether V is a phi that was found redundant and replaced.
  bool isRemoved(Value V) const;
  /// Whether V is a phi of a block not sealed yet, waiting for its operands.
  bool isIncompletePhi(Value V) const;
  /// For a phi, its block. For an undef, the block where the search for a
  /// definition ended: a block without predecessors (usually the entry), or
  /// for unreachable cycles, a block of the cycle.
  Block blockOf(Value V) const;
  /// For a phi or an undef, the variable it is a value of.
  Variable variableOf(Value V) const;
  /// A phi's operands, one per predecessor edge in addPredecessor order.
  /// Before finish() they may name removed phis, so resolve() them; after
  /// finish() they are already resolved.
  llvm::ArrayRef<Value> phiOperands(Value Phi) const;
  /// @}

  /// \name Finishing
  /// @{
  /// Requires every block to be sealed. Removes the phi cycles that merge
  /// only one value from outside, then freezes the builder: no more blocks,
  /// edges, definitions or uses.
  void finish();
  bool isFinished() const;
  /// After finish(): the surviving phis, in creation order. None of them is
  /// removed, and each has one operand per predecessor edge of its block.
  llvm::ArrayRef<Value> phis() const;
  /// @}

private:
  class Impl;
  std::unique_ptr<Impl> I;
};

} // namespace llq::ssa

#endif // LLQUOTE_SSA_SSABUILDER_H
