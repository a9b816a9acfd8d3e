//===- Lower.cpp - Dialect syntax tree to LLVM assembly text --------------===//
//
// Plain LLVM IR lowers to itself. Antiquotes need bindings, which only the
// embedding API and `llquote-fmt -D` provide; control structures and direct
// assignment need SSA restoration. Neither is part of this lowering yet, so
// both are reported, at their own position, as unsupported here.
//
//===----------------------------------------------------------------------===//

#include "Lower.h"
#include "Parse.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>

using namespace llq;
using namespace llvm;

void SourceMap::addVerbatim(uint32_t Out, uint32_t Src, uint32_t Len) {
  Segments.push_back({Out, Src, Len, true});
}

void SourceMap::addGenerated(uint32_t Out, uint32_t Src, uint32_t Len) {
  Segments.push_back({Out, Src, Len, false});
}

uint32_t SourceMap::toSource(uint32_t Out) const {
  auto It = std::upper_bound(
      Segments.begin(), Segments.end(), Out,
      [](uint32_t O, const Segment &S) { return O < S.Out; });
  if (It == Segments.begin())
    return 0;
  const Segment &S = *std::prev(It);
  if (!S.Verbatim)
    return S.Src;
  return S.Src + std::min(Out - S.Out, S.Len);
}

/// The first node, in source order, that the plain lowering cannot handle.
static const Node *findDialectNode(const Node *Root) {
  SmallVector<const Node *, 64> Stack{Root};
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    switch (N->Kind) {
    case NodeKind::Antiquote:
    case NodeKind::For:
    case NodeKind::While:
    case NodeKind::If:
    case NodeKind::Break:
    case NodeKind::Continue:
    case NodeKind::Assign:
      return N;
    default:
      break;
    }
    // Push children in reverse so the first child is visited first.
    SmallVector<const Node *, 8> Children;
    for (const Node *C = N->First; C; C = C->Next)
      Children.push_back(C);
    Stack.append(Children.rbegin(), Children.rend());
  }
  return nullptr;
}

static std::string describeUnsupported(const SyntaxTree &Tree, const Node *N) {
  switch (N->Kind) {
  case NodeKind::Antiquote:
    return ("unbound antiquote '" + Tree.text(N) + "'").str();
  case NodeKind::Assign:
    return "direct assignment needs SSA restoration, which this build of "
           "llquote does not include yet";
  default:
    return "control structures need SSA restoration, which this build of "
           "llquote does not include yet";
  }
}

Expected<LoweredText> llq::lowerSyntax(const SyntaxTree &Tree,
                                       const SourceMgr &SM,
                                       unsigned BufferID) {
  if (Tree.NumAntiquotes || Tree.NumControl) {
    const Node *N = findDialectNode(Tree.Root);
    assert(N && "counted a dialect node the walk did not find");
    SMLoc Loc = locAt(SM, BufferID, N->Range.Begin);
    return makeError(SM, Loc, describeUnsupported(Tree, N));
  }
  return identityLowering(Tree);
}

LoweredText llq::identityLowering(const SyntaxTree &Tree) {
  LoweredText L;
  L.Text = Tree.Source;
  L.Map.addVerbatim(0, 0, static_cast<uint32_t>(Tree.Source.size()));
  return L;
}
