//===- Aot.h - What ahead-of-time compilation reads of a Runtime -*- C++ -*-===//
//
// Internal to the skeleton library: the plan a Runtime records for an
// expression (Runtime.cpp), in the terms of the ahead-of-time runtime
// (llquote/aot/Program.h), for the generator (Aot.cpp) to write out.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_LIB_AOT_H
#define LLQUOTE_SKELETONS_LIB_AOT_H

#include "llquote/Skeletons.h"
#include "llquote/aot/Program.h"
#include "llquote/skeletons/Skeleton.h"

namespace llq::detail {

struct ExportedStep {
  std::shared_ptr<Node> Root;
  std::shared_ptr<const Kernel> K;
  /// Each Use leaf, by its preorder position in Root's tree, and where its
  /// array comes from.
  std::vector<std::pair<unsigned, aot::Source>> Leaves;
};

struct ExportedPlan {
  std::vector<ExportedStep> Steps;
  /// The expression's input arrays' Use nodes, in the order a plan's
  /// Source::Param numbers them.
  std::vector<const Node *> Inputs;
  aot::Source Result;
};

/// The plan R records for N, its kernels compiled by R's backend; fails on
/// what ahead-of-time plans do not hold yet (acond, awhile).
llvm::Expected<ExportedPlan> exportPlan(Runtime &R, const NodeRef &N);

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_LIB_AOT_H
