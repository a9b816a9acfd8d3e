//===- Diagnostics.h - Located errors of llquote ----------------*- C++ -*-===//
//
// Every user mistake llquote finds becomes a DiagnosticError: an llvm::Error
// that carries one `error:` SMDiagnostic and any `note:`s that go with it,
// each pointing into the user's text. The library never prints or exits on
// its own; tools print these with print() in the format every LLVM tool uses:
//
//   file:line:col: error: message
//   <the source line>
//       ^
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_DIAGNOSTICS_H
#define LLQUOTE_DIAGNOSTICS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <vector>

namespace llq {

class DiagnosticError : public llvm::ErrorInfo<DiagnosticError> {
public:
  static char ID;

  explicit DiagnosticError(llvm::SMDiagnostic Error) {
    Diags.push_back(std::move(Error));
  }
  /// Adds a note that explains the error, e.g. "previous definition is here".
  void addNote(llvm::SMDiagnostic Note) { Diags.push_back(std::move(Note)); }

  /// The error first, then its notes.
  const std::vector<llvm::SMDiagnostic> &diagnostics() const { return Diags; }
  const llvm::SMDiagnostic &error() const { return Diags.front(); }

  /// Prints every diagnostic with its source line and caret.
  void print(llvm::raw_ostream &OS, bool ShowColors = false) const;
  void log(llvm::raw_ostream &OS) const override { print(OS); }
  std::error_code convertToErrorCode() const override;

private:
  std::vector<llvm::SMDiagnostic> Diags;
};

/// \p E with every diagnostic of its DiagnosticErrors replaced by \p Map's
/// result (to move them to another buffer or file); other errors pass as
/// they are.
llvm::Error
mapDiagnostics(llvm::Error E,
               llvm::function_ref<llvm::SMDiagnostic(const llvm::SMDiagnostic &)> Map);

/// An error at \p Loc of a buffer held by \p SM.
llvm::Error makeError(const llvm::SourceMgr &SM, llvm::SMLoc Loc,
                      const llvm::Twine &Message,
                      llvm::ArrayRef<llvm::SMRange> Ranges = {});

} // namespace llq

#endif // LLQUOTE_DIAGNOSTICS_H
