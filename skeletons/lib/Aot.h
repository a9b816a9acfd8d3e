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

struct ExportedControl;

struct ExportedStep {
  std::shared_ptr<Node> Root;
  std::shared_ptr<const Kernel> K;
  /// Each Use leaf, by its preorder position in Root's tree, and where its
  /// array comes from.
  std::vector<std::pair<unsigned, aot::Source>> Leaves;
  /// An acond or awhile, in place of Root and K.
  std::shared_ptr<ExportedControl> Ctl;
};

struct ExportedPlan {
  std::vector<ExportedStep> Steps;
  /// The expression's input arrays' Use nodes, in the order a plan's
  /// Source::Param numbers them (the outermost plan's only: the plans of
  /// an acond or awhile share them).
  std::vector<const Node *> Inputs;
  aot::Source Result;
};

/// As aot::Control.
struct ExportedControl {
  bool IsLoop = false;
  aot::Source First;
  ExportedPlan Test, Then, Else;
};

/// The plan R records for N, its kernels compiled by R's backend.
llvm::Expected<ExportedPlan> exportPlan(Runtime &R, const NodeRef &N);

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_LIB_AOT_H
