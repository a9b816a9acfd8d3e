//===- DuplicateMetadata.cpp - A metadata id defined twice ----------------===//
//
// The contract is in DuplicateMetadata.h. A definition's text starts with
// its id: '!' and the digits after it.
//
//===----------------------------------------------------------------------===//

#include "DuplicateMetadata.h"
#include "Parse.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace llq;
using namespace llvm;

Error llq::checkDuplicateMetadataIds(const SyntaxTree &Tree,
                                     const SourceMgr &SM, unsigned BufferID) {
  StringMap<const Node *> First;
  for (const Node *Def : Tree.MetadataDefs) {
    StringRef Text = Tree.text(Def);
    StringRef Id = Text.drop_front().take_while(isDigit);
    if (Id.empty())
      continue;
    auto [It, New] = First.try_emplace(Id, Def);
    if (New)
      continue;
    auto E = std::make_unique<DiagnosticError>(SM.GetMessage(
        locAt(SM, BufferID, Def->Range.Begin), SourceMgr::DK_Error,
        "metadata id '!" + Id + "' is already used"));
    E->addNote(SM.GetMessage(locAt(SM, BufferID, It->second->Range.Begin),
                             SourceMgr::DK_Note,
                             "'!" + Id + "' is first defined here"));
    return Error(std::move(E));
  }
  return Error::success();
}
