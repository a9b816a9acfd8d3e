//===- Antiquotes.cpp - A template's antiquotes and local names ----------===//
//
// The contract is in Antiquotes.h.
//
//===----------------------------------------------------------------------===//

#include "Antiquotes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llq;
using namespace llvm;

std::string llq::describeBound(const Binding &B) {
  std::string S;
  raw_string_ostream OS(S);
  auto Short = [](StringRef Text) {
    Text = Text.trim();
    std::string T = Text.take_front(60).str();
    std::replace(T.begin(), T.end(), '\n', ' ');
    return Text.size() > 60 ? T + "..." : T;
  };
  switch (B.kind()) {
  case Binding::Kind::Type:
    OS << "the type '" << *B.type() << "'";
    break;
  case Binding::Kind::Constant:
    OS << "the constant '";
    B.constant()->printAsOperand(OS, /*PrintType=*/true);
    OS << "'";
    break;
  case Binding::Kind::Value:
    OS << "the value '";
    B.value()->printAsOperand(OS, /*PrintType=*/true);
    OS << "'";
    break;
  case Binding::Kind::Integer:
    OS << "the integer " << toString(B.integer(), 10, B.isSigned());
    break;
  case Binding::Kind::Float: {
    SmallString<32> Str;
    B.floating().toString(Str);
    OS << "the number " << Str;
    break;
  }
  case Binding::Kind::Bool:
    OS << (B.integer().isZero() ? "false" : "true");
    break;
  case Binding::Kind::Name:
  case Binding::Kind::DataLayout:
  case Binding::Kind::Triple:
    OS << "the string \"" << Short(B.text()) << "\"";
    break;
  case Binding::Kind::Fragment:
  case Binding::Kind::Source:
    OS << B.describe() << ", \"" << Short(B.text()) << "\"";
    break;
  case Binding::Kind::List:
    OS << "a list of " << B.list().size();
    break;
  case Binding::Kind::Invalid:
    OS << "an invalid value";
    break;
  case Binding::Kind::Param:
    OS << "the parameter '%" << B.text() << "'";
    break;
  }
  return S;
}

std::vector<AntiquoteSite> llq::collectAntiquotes(const SyntaxTree &Tree) {
  std::vector<AntiquoteSite> Sites;
  SmallVector<const Node *, 64> Stack{Tree.Root};
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    if (N->is(NodeKind::Antiquote)) {
      StringRef Name = Tree.text(N).split(':').second;
      if (Name.consume_front("("))
        Name = Name.drop_back().trim();
      Sites.push_back({N->Range, static_cast<AntiquoteKind>(N->Sub), Name.str()});
      continue;
    }
    size_t Mark = Stack.size();
    for (const Node *C = N->First; C; C = C->Next)
      Stack.push_back(C);
    std::reverse(Stack.begin() + Mark, Stack.end());
  }
  return Sites;
}

StringMap<uint32_t> llq::collectLocalNamesOf(const SyntaxTree &Tree) {
  StringMap<uint32_t> Names;
  forEachNode(Tree.Root, [&](const Node *N) {
    if (isLocalName(N)) {
      auto [It, New] = Names.try_emplace(localName(Tree, N), N->Range.Begin);
      if (!New)
        It->second = std::min(It->second, N->Range.Begin);
    }
  });
  return Names;
}
