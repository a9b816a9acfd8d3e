//===- Antiquotes.h - A template's antiquotes and local names ---*- C++ -*-===//
//
// What splicing needs to know of a parsed template, read once from its
// syntax tree (Template.cpp keeps it with the cached template): its
// antiquotes in source order, each with its kind, name and range, and every
// local name it writes. Also how a binding is named in notes and in the
// spliced text. No pass: data and the queries that fill it.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_ANTIQUOTES_H
#define LLQUOTE_LIB_ANTIQUOTES_H

#include "InternalNames.h"
#include "Syntax.h"
#include "llquote/Binding.h"
#include "llvm/ADT/StringMap.h"
#include <string>
#include <vector>

namespace llq {

struct AntiquoteSite {
  SrcRange Range;
  AntiquoteKind Kind;
  std::string Name;
};

/// The antiquotes of \p Tree, in source order.
std::vector<AntiquoteSite> collectAntiquotes(const SyntaxTree &Tree);

/// Every local name the template writes (values and labels, without '%'),
/// with the place of its first occurrence.
llvm::StringMap<uint32_t> collectLocalNamesOf(const SyntaxTree &Tree);

/// A template's antiquotes and local names, read once (Template.cpp), for
/// the front end to splice without parsing the template again.
struct ParsedAntiquotes {
  const std::vector<AntiquoteSite> *Sites;
  const llvm::StringMap<uint32_t> *Names;
};

/// What a binding holds, for a note: "the type 'double'".
std::string describeBound(const Binding &B);

/// The local name an llvm::Value bound to antiquote \p Name stands for in
/// the spliced text (element \p Index of a list, for $args).
inline std::string boundValueName(llvm::StringRef Name, int Index = -1) {
  std::string S = (names::BoundPrefix + Name).str();
  return Index < 0 ? S : S + "." + std::to_string(Index);
}

} // namespace llq

#endif // LLQUOTE_LIB_ANTIQUOTES_H
