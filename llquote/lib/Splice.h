//===- Splice.h - Antiquotes replaced by their bindings ---------*- C++ -*-===//
//
// spliceAntiquotes: requires a template's antiquotes (Antiquotes.h) and a
// binding for each; produces the template's text with every antiquote
// replaced by the text of its binding, and a source map that sends each
// replacement back to its antiquote. The
// result is dialect text, parsed and lowered like any other, so a spliced
// fragment may use control structures and reassign variables.
//
// A hygienic fragment's own names are renamed apart at each splice, all but
// its exports (Hygiene.h); a final splice gives placeholders readable names.
//
// Errors, at the antiquote: no binding of that name; a binding of a kind the
// antiquote does not take (with what was expected and what was given); a
// fragment that defines a name the template uses without listing it among
// its outputs (accidental capture), with a note at the template's use.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_SPLICE_H
#define LLQUOTE_LIB_SPLICE_H

#include "Antiquotes.h"
#include "LoweredText.h"
#include "Syntax.h"
#include "llquote/Binding.h"
#include "llvm/Support/SourceMgr.h"
#include <optional>
#include <string>
#include <vector>

namespace llq {

/// Where the text of a binding read from a file (Binding::source with an
/// origin) stands, verbatim, in the spliced text: [Begin, End), for the
/// antiquote Sites[Site].
struct SplicedSource {
  uint32_t Begin, End;
  size_t Site;
};

/// How a template that becomes a fragment (Template::fragment) is spliced.
/// Without one, the splice is final: it makes the text that is read, and
/// the placeholders of hygienic fragments (Hygiene.h) get readable names.
struct FragmentSplice {
  /// For a hygienic template: where its own names stand in Source (each a
  /// token's range) and the placeholder each becomes.
  std::vector<std::pair<SrcRange, std::string>> Own;
  /// Filled by the splice: the exports of the hygienic fragments spliced,
  /// which the new fragment keeps too.
  std::vector<std::string> Inherited;
};

llvm::Expected<LoweredText>
spliceAntiquotes(llvm::StringRef Source, const std::vector<AntiquoteSite> &Sites,
                 const Bindings &Bound, const llvm::StringMap<uint32_t> &Names,
                 const llvm::SourceMgr &SM, unsigned BufferID,
                 std::vector<SplicedSource> *FromFiles = nullptr,
                 FragmentSplice *AsFragment = nullptr);

/// The text a binding of a value gives antiquote kind \p K (`$const` or
/// `$opr`), as spliceAntiquotes splices it, or nothing for a binding that
/// kind does not take. An llvm::Value bound to `$opr` is not text: it is
/// none here.
std::optional<std::string> valueText(const Binding &B, AntiquoteKind K);

} // namespace llq

#endif // LLQUOTE_LIB_SPLICE_H
