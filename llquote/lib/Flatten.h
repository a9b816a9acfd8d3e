//===- Flatten.h - Structured function bodies to basic blocks ---*- C++ -*-===//
//
// flattenBody: requires the Body node of one function; produces its control
// flow graph, a list of basic blocks in source order, in which every `for`,
// `while`, `if`, `break` and `continue` has become blocks and branches, and
// every block ends in a terminator (a block that falls off its end branches
// to the next one). Instructions stay syntax-tree nodes; variables are not
// touched here, so the result is not yet SSA.
//
// Lowering of `for T %i in A to B { body }` (`downto`: sgt and sub):
//
//   pre:        %i = A ; bound = B                     (each read once)
//               br label %for.cond
//   for.cond:   %c = icmp slt T %i, bound
//               br i1 %c, label %for.body, label %for.end
//   for.body:   body ; br label %for.inc                (continue: for.inc)
//   for.inc:    %i = add T %i, 1 ; br label %for.cond
//   for.end:                                           (break: for.end)
//
// With a step other than the constant 1, `continue` and the body go to a
// latch that leaves before the counter could step past the bound:
//
//   for.latch:  %rem = sub T bound, %i                 (as unsigned: exact)
//               %last = icmp ule T %rem, step
//               br i1 %last, label %for.end, label %for.inc
//   for.inc:    %i = add T %i, step ; br label %for.cond
//
// Either way the counter never wraps, at any type's limits, and no nuw/nsw
// flag is needed: with step 1, %i < bound <= MAX before each increment.
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_FLATTEN_H
#define LLQUOTE_LIB_FLATTEN_H

#include "Syntax.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <string>
#include <vector>

namespace llq {

/// An operand of a generated instruction: a source value node, or a value the
/// flattener made (a temporary), or the current value of a variable.
struct GenOperand {
  enum Kind { None, Source, TempValue, Var, Const } K = None;
  const Node *Src = nullptr; ///< Source: the value node; Var: its def node.
  unsigned Temp = 0;         ///< Temp: the temporary's number.
  const char *Text = "";     ///< Const: the constant, e.g. "1".

  static GenOperand source(const Node *V) { return {Source, V, 0, ""}; }
  static GenOperand temp(unsigned T) { return {TempValue, nullptr, T, ""}; }
  static GenOperand var(const Node *Def) { return {Var, Def, 0, ""}; }
  static GenOperand constant(const char *C) { return {Const, nullptr, 0, C}; }
};

/// An instruction of a flattened block.
struct FlatItem {
  enum Kind {
    Source,   ///< An instruction, debug record or uselistorder of the source.
    Assign,   ///< A direct assignment node: `%x = T v`.
    SetVar,   ///< Generated: variable Var (a LocalDef node) = Lhs.
    Bind,     ///< Generated: Temp names the value of Lhs (no instruction).
    Compare,  ///< Generated: Temp = icmp Pred Type Lhs, Rhs.
    Arith,    ///< Generated: Var = Op Type Lhs, Rhs (Op: "add" / "sub"),
              ///  or Temp = ... when Var is null.
    Br,       ///< Generated: br label Targets[0].
    CondBr,   ///< Generated: br i1 Lhs, label Targets[0], label Targets[1].
  } K;
  const Node *N = nullptr;   ///< Source / Assign node; the origin otherwise.
  const Node *Var = nullptr; ///< SetVar / Arith: the LocalDef of the variable.
  const Node *Type = nullptr;
  const char *Op = "";       ///< Compare predicate or arithmetic opcode.
  GenOperand Lhs, Rhs;
  unsigned Temp = 0;         ///< Compare / Arith: the result temporary.
  unsigned Targets[2] = {0, 0};
};

struct FlatBlock {
  std::string Name;           ///< The label, without '%' and ':'.
  const Node *Origin;         ///< Where the block comes from, for notes.
  std::vector<FlatItem> Items; ///< The last one is the terminator.
  std::vector<unsigned> Succs;
};

struct FlatFunction {
  std::vector<FlatBlock> Blocks; ///< In creation order.
  std::vector<unsigned> Order;   ///< Blocks in source order; Order[0] is the entry.
  unsigned NumTemps = 0;
  /// Names of temporaries, by number, without '%'.
  std::vector<std::string> TempNames;

  /// Which blocks a path from the entry reaches, by block number.
  std::vector<uint8_t> reachable() const;
};

llvm::Expected<FlatFunction> flattenBody(const SyntaxTree &Tree,
                                         const Node *Body,
                                         llvm::StringSet<> &UsedNames,
                                         const llvm::SourceMgr &SM,
                                         unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_FLATTEN_H
