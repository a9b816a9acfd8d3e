//===- Splice.h - Antiquotes replaced by their bindings ---------*- C++ -*-===//
//
// collectAntiquotes: requires a parsed template; produces its antiquotes in
// source order, each with its kind, its name and its range.
// spliceAntiquotes: requires those and a binding for each; produces the
// template's text with every antiquote replaced by the text of its binding,
// and a source map that sends each replacement back to its antiquote. The
// result is dialect text, parsed and lowered like any other, so a spliced
// fragment may use control structures and reassign variables.
//
// Errors, at the antiquote: no binding of that name; a binding of a kind the
// antiquote does not take (with what was expected and what was given); a
// fragment that defines a name the template uses without listing it among
// its outputs (accidental capture), with a note at the template's use.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_SPLICE_H
#define LLQUOTE_LIB_SPLICE_H

#include "LoweredText.h"
#include "Syntax.h"
#include "llquote/Binding.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"
#include <string>
#include <vector>

namespace llq {

struct AntiquoteSite {
  SrcRange Range;
  AntiquoteKind Kind;
  std::string Name;
};

std::vector<AntiquoteSite> collectAntiquotes(const SyntaxTree &Tree);

/// What a binding holds, for a note: "the type 'double'".
std::string describeBound(const Binding &B);

/// The local name an llvm::Value bound to antiquote \p Name stands for in
/// the spliced text (element \p Index of a list, for $args).
inline std::string boundValueName(llvm::StringRef Name, int Index = -1) {
  std::string S = "llq.bound." + Name.str();
  return Index < 0 ? S : S + "." + std::to_string(Index);
}

/// Every local name the template writes (values and labels, without '%'),
/// with the place of its first occurrence.
llvm::StringMap<uint32_t> collectLocalNamesOf(const SyntaxTree &Tree);

/// A template's antiquotes and local names, read once (Template.cpp), for
/// the front end to splice without parsing the template again.
struct ParsedAntiquotes {
  const std::vector<AntiquoteSite> *Sites;
  const llvm::StringMap<uint32_t> *Names;
};

/// Where the text of a binding read from a file (Binding::source with an
/// origin) stands, verbatim, in the spliced text: [Begin, End), for the
/// antiquote Sites[Site].
struct SplicedSource {
  uint32_t Begin, End;
  size_t Site;
};

/// Moves every diagnostic of \p E that points into buffer \p From to
/// buffer \p To, at the offset \p Map gives for its offset in \p From.
llvm::Error remapDiagnostics(llvm::Error E,
                             llvm::function_ref<uint32_t(uint32_t)> Map,
                             const llvm::SourceMgr &SM, unsigned From,
                             unsigned To);

llvm::Expected<LoweredText>
spliceAntiquotes(llvm::StringRef Source, const std::vector<AntiquoteSite> &Sites,
                 const Bindings &Bound, const llvm::StringMap<uint32_t> &Names,
                 const llvm::SourceMgr &SM, unsigned BufferID,
                 std::vector<SplicedSource> *FromFiles = nullptr);

} // namespace llq

#endif // LLQUOTE_LIB_SPLICE_H
