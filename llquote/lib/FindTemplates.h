//===- FindTemplates.h - Locate LLQ_SKELETON templates in C++ ---*- C++ -*-===//
//
// findTemplates: requires the text of one C++ source file; produces every
// `LLQ_SKELETON(R"delim(...)delim")` in it (and every use of the other
// template macros, LLQ_INSTRS and the rest, with its granularity), in source order, with the exact
// byte offset, line and column at which its template text starts, so that a
// build-time checker can report an error inside a template at the C++ file's
// own line:col. It lexes just enough C++ (comments, string and character
// literals, raw strings, pp-numbers, line continuations) that an
// `LLQ_SKELETON` inside any of them is not taken for a template. Nothing is
// preprocessed: a template produced by another macro is not seen.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_FINDTEMPLATES_H
#define LLQUOTE_LIB_FINDTEMPLATES_H

#include "llquote/Binding.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstddef>
#include <optional>
#include <system_error>
#include <vector>

namespace llq {

/// One LLQ_SKELETON template found in a C++ source.
struct TemplateSite {
  size_t MacroOffset;    ///< byte offset of the `LLQ_SKELETON` token
  size_t TextOffset;     ///< byte offset of the first character of the template
                         ///< text (just after `R"delim(`)
  llvm::StringRef Text;  ///< the template text (between `R"delim(` and
                         ///< `)delim"`), pointing into the source
  unsigned Line, Column; ///< 1-based line and column of TextOffset in the C++
                         ///< source; lines count '\n', columns count bytes
  Granularity Kind = Granularity::Module; ///< Which macro: LLQ_SKELETON, ...
  bool Hygienic = false; ///< LLQ_HYGIENIC_INSTRS or LLQ_HYGIENIC_BLOCKS
  /// LLQ_PRELUDE: definitions that need nothing from elsewhere, so the
  /// checker reads them whole, with LLVM's type checks and verifier.
  bool SelfContained = false;
};

/// A mistake in the C++ source that hides a template's text from the
/// checker. It is a StringError whose message starts with "<line>:<col>: ",
/// so toString() and StringError handlers work unchanged; the byte offset is
/// kept as well, for callers that build an SMDiagnostic from it.
class TemplateSiteError
    : public llvm::ErrorInfo<TemplateSiteError, llvm::StringError> {
public:
  static char ID;

  TemplateSiteError(size_t Offset, unsigned Line, unsigned Column,
                    const llvm::Twine &Message)
      : ErrorInfo(Message, std::make_error_code(std::errc::invalid_argument)),
        Offset(Offset), Line(Line), Column(Column) {}

  /// Byte offset, in the C++ source, of the offending place.
  size_t getOffset() const { return Offset; }
  /// Its line and column, 1-based.
  unsigned getLine() const { return Line; }
  unsigned getColumn() const { return Column; }
  /// "<line>:<col>: <message>".
  void log(llvm::raw_ostream &OS) const override {
    OS << Line << ':' << Column << ": " << getMessage();
  }

private:
  size_t Offset;
  unsigned Line, Column;
};

/// Finds the templates of \p Source. It lexes C++ just enough to skip
/// comments (// and /* */), ordinary string and character literals (with
/// escapes, and prefixes u8/u/U/L), raw string literals (any prefix, any
/// delimiter), and line continuations, so that `LLQ_SKELETON` inside those is
/// not a template. Only an identifier exactly equal to `LLQ_SKELETON` and
/// followed by `(` is a use; the name in `#define LLQ_SKELETON(...)` is not.
/// Whitespace and comments may separate the name, the `(`, the literal and
/// the `)`.
///
/// An `LLQ_SKELETON(` whose argument is not a single raw string literal is an
/// error (the checker cannot see its text; adjacent literals are not
/// concatenated); so is an unterminated literal or comment. Errors are
/// TemplateSiteError values that carry the offending place (offset, and
/// line and column, 1-based) beside the message. Malformed input never crashes, and the work is
/// linear in the size of \p Source.
llvm::Expected<std::vector<TemplateSite>> findTemplates(llvm::StringRef Source);

} // namespace llq

#endif // LLQUOTE_LIB_FINDTEMPLATES_H
