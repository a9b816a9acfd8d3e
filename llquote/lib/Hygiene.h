//===- Hygiene.h - Names of hygienic fragments, apart and readable -*- C++ -*-===//
//
// A hygienic fragment's own names are *placeholders*: `%"v\01h42"`, the
// name its template wrote, the byte 1 and `h`, and a number no other
// placeholder of the process has. A placeholder cannot be a name a template writes by accident, so a
// fragment's names never meet the names around it.
//
//   freshPlaceholder: requires a name as written; produces a placeholder
//     for it that no earlier call produced.
//   renameTokens: requires dialect text and a rule; produces the text with
//     every local name and label the rule maps replaced, and nothing else
//     changed (comments, strings and quoted names are the lexer's).
//   reidPlaceholders: requires a hygienic fragment's text and the names it
//     keeps (its exports); produces the text with every other placeholder
//     it defines replaced by a fresh one (one it only reads is an export of
//     another fragment, given to it). Each splice does it, so that two splices of
//     one fragment share no names but the exports.
//   ReadableNames: requires the spliced texts of one final instantiation and
//     every other name written there; gives each placeholder, in order of
//     first appearance, the name `<written>.<n>` with the least n that no
//     other name has. The module's names then depend only on its text, as
//     the kernel caches' keys need.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_HYGIENE_H
#define LLQUOTE_LIB_HYGIENE_H

#include "Tokens.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llq {

/// A placeholder for the name \p Written (without '%'), never made before.
std::string freshPlaceholder(llvm::StringRef Written);

/// Whether \p Name (without '%' and quotes) is a placeholder; if so, the
/// name it stands for in \p Written.
bool isPlaceholder(llvm::StringRef Name, llvm::StringRef *Written = nullptr);

/// Whether dialect text may hold a placeholder: the printed form of its
/// marker is in it. A quick test before any lexing.
bool mayHoldPlaceholders(llvm::StringRef Text);

/// \p Text, whose tokens are \p Tokens, with each local name and label N
/// for which \p Rule gives a new name replaced by it (both without '%',
/// ':' and quotes).
using RenameRule =
    std::function<std::optional<std::string>(llvm::StringRef)>;
std::string renameTokens(llvm::StringRef Text,
                         const std::vector<Token> &Tokens,
                         const RenameRule &Rule);

/// \p Text with every placeholder it defines, but those in \p Keep, given
/// a fresh one.
std::string reidPlaceholders(llvm::StringRef Text,
                             const std::vector<std::string> &Keep);

/// Every local name and label written in \p Text, whose tokens are
/// \p Tokens (without '%').
void collectTokenNames(llvm::StringRef Text, const std::vector<Token> &Tokens,
                       llvm::StringSet<> &Names);

/// Readable names for the placeholders of one final instantiation.
class ReadableNames {
public:
  /// \p Taken: every name of the text that is not a placeholder.
  explicit ReadableNames(llvm::StringSet<> Taken) : Taken(std::move(Taken)) {}
  /// \p Text (whose tokens are \p Tokens) with its placeholders renamed,
  /// consistently across calls.
  std::string rename(llvm::StringRef Text, const std::vector<Token> &Tokens);

private:
  llvm::StringSet<> Taken;
  llvm::StringMap<std::string> Given;
  llvm::StringMap<unsigned> NextFor;
};

} // namespace llq

#endif // LLQUOTE_LIB_HYGIENE_H
