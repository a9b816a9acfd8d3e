//===- Expr.h - Array programs as trees of nodes ----------------*- C++ -*-===//
//
// Node, the untyped form of an array program, and its operations: what a
// kernel's launch reads (shapes, constants, run-time values, arrays) and
// what KernelGen's code depends on (the structure). Plain C++17 with no
// LLVM header: the launch protocol (Launch.h) reads nodes in programs that
// do not link LLVM. Node.h adds what building and checking them needs.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_EXPR_H
#define LLQUOTE_SKELETONS_EXPR_H

#include "llquote/skeletons/Language.h"

namespace llq::detail {

class Launcher;

enum class Op : uint8_t {
  Use,         ///< A manifest array.
  Generate,    ///< Fns[0](ix...)
  Map,         ///< Fns[0](Kids[0][ix])
  ZipWith,     ///< Fns[0](Kids[0][ix], ...); Code[0]: all shapes equal.
  IZipWith,    ///< Fns[0](ix..., Kids[0][ix], ...): imap, izipWith.
  Transform,   ///< Fns[1](Kids[0][Fns[0](ix)]); Backpermute has no Fns[1].
  Backpermute, ///< Kids[0][Fns[0](ix)]
  Reshape,     ///< Kids[0] at the same linear position.
  Reverse,     ///< Kids[0][n-1-i]
  Transpose,   ///< Kids[0][j][i]
  Slice,       ///< Kids[0][Vals[0]][ix...]
  Replicate,   ///< Kids[0][ix[1:]]
  Cut,         ///< Kids[0][ix..., i + Vals[0]]: take, drop, init, tail.
  Reindex,     ///< Kids[0] through a slice specification: Code[d] is 0 for
               ///< All, 1 for a new dimension (replicate), 2 + k for the
               ///< fixed index Vals[k] (slice).
  Zip,         ///< (Kids[0][ix], ...); Code[0]: all shapes equal.
  Field,       ///< Field Code[0] of Kids[0][ix]: field, fst, snd, unzip.
  Concat,      ///< i < n ? Kids[0][ix..., i] : Kids[1][ix..., i - n].
  Fill,        ///< Consts[0]
  EnumFromN,   ///< Consts[0] + linear position
  Consumer,    ///< A skeleton's kernel: Skel.
  Select,      ///< Output Code[0] of the multi-output consumer Kids[0].
  Cond,        ///< Kids[1] if the scalar Kids[0] holds, else Kids[2] (acond).
  While,       ///< Kids[0], then Kids[2] of it while Kids[1] of it holds
               ///< (awhile); both read the loop's value as Kids[3], a Use
               ///< of no array (Node::LoopValue).
};

struct Node {
  Node() = default;
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;
  /// Releases the tree below without recursion: a chain of a hundred
  /// thousand operations is destroyed in constant stack.
  ~Node();

  Op K = Op::Use;
  /// The operation's name for messages ("zipWith").
  const char *Name = "use";
  ElemType Type = ElemType::scalar(ScalarKind::I32);
  Shape Sh;
  std::vector<NodeRef> Kids;
  /// Kids[0, NumInputs) are the operation's arrays; the rest are arrays
  /// its functions read (Fn::with), always computed before the kernel.
  unsigned NumInputs = 0;
  std::vector<Fn> Fns;
  /// For each of Fns, the kids that hold the arrays it reads.
  std::vector<std::vector<unsigned>> FnArrays;
  /// For each of Fns, the Consts that hold its bound parameters' values,
  /// in the order of Fn::bound().
  std::vector<std::vector<unsigned>> FnBound;
  std::vector<Scalar> Consts;
  /// Structural parameters: part of the key.
  std::vector<int64_t> Code;
  /// Run-time parameters: passed in slots.
  std::vector<int64_t> Vals;
  std::shared_ptr<rt::Array> Data;
  /// The consumer's skeleton (Skeleton.h), or, in a program that runs
  /// kernels compiled ahead of time, its host half alone.
  const Launcher *Skel = nullptr;
  /// A hash of the skeleton's name: stable from process to process.
  uint64_t SkelId = 0;
  /// Kids (bit I for kid I) that a consumer reads on the host, and so
  /// are computed before it instead of fused into it.
  uint32_t ManifestKids = 0;
  /// The consumer's outputs (Select picks one); one for most skeletons.
  std::vector<ElemType> OutTypes;
  std::vector<Shape> OutShapes;
  std::string Error;
  /// Operations on the longest path from here to a leaf, this one included
  /// (a manifest array is 1); at most MaxExpressionDepth + 1, where Error
  /// says that the expression is too deep.
  unsigned Depth = 1;

  /// The stand-in for an awhile loop's value in its condition and step: a
  /// Use of no array, which a run binds to the loop's array of the moment.
  bool LoopValue = false;
  /// A distributed array's use (llq::mpi, Distributed.h): Data is this
  /// rank's block of the array of shape Sh, Vals the layout's row starts.
  /// A Runtime of one process refuses it.
  bool Distributed = false;
  /// A result whose length only a run decides (filter, compact): it may be
  /// run, but not used inside another expression.
  bool LengthAfterRun = false;

  bool isProducer() const {
    return K != Op::Consumer && K != Op::Select && K != Op::Cond &&
           K != Op::While;
  }
};

/// A new node; Error is set from the first kid that has one.
std::shared_ptr<Node> makeNode(Op K, const char *Name,
                               std::vector<NodeRef> Kids = {});

/// Sh's extents, outermost first.
std::vector<int64_t> extentsOf(const Shape &Sh);
/// The same without the innermost: the shape of Sh's rows, of a fold's
/// result (Sh of rank 1 or more).
std::vector<int64_t> outerExtents(const Shape &Sh);
/// Whether A is a scalar of bool that holds: an acond's condition, an
/// awhile's test.
bool holds(const rt::Array &A);

/// Raises N's depth to one more than Kid's; past MaxExpressionDepth the
/// node keeps an error (its depth stops growing there).
void deepen(Node &N, const Node &Kid);

/// A new node with N's operation, types, shapes, functions, constants,
/// values and skeleton, and no kids: for a copy of a tree whose kids are
/// set anew (a run's plan, a rank's part of a distributed operation).
std::shared_ptr<Node> copyNode(const Node &N);

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_EXPR_H
