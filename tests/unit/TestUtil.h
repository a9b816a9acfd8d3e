//===- TestUtil.h - Helpers shared by llquote's unit tests ------*- C++ -*-===//
//
// Runs the front end on a string and turns its outcome into values doctest
// can compare: the module, or the first diagnostic's line, column and text.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_TESTS_UNIT_TESTUTIL_H
#define LLQUOTE_TESTS_UNIT_TESTUTIL_H

#include "llquote/Frontend.h"
#include <string>

namespace llq::test {

/// What the front end made of one input.
struct Outcome {
  std::unique_ptr<llvm::LLVMContext> Ctx;
  std::unique_ptr<llvm::Module> M;
  bool Located = false;     ///< The error is a DiagnosticError with a line.
  int Line = 0, Column = 0; ///< 1-based line, 0-based column, as SMDiagnostic.
  std::string Message;      ///< The error's message.
  std::string Printed;      ///< All diagnostics as a tool prints them.

  bool ok() const { return M != nullptr; }
};

/// The module as LLVM prints it: the canonical form modules compare by.
inline std::string printModule(const llvm::Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

/// An empty module named "q", as a quoted module is named once printed by
/// printedQuote().
inline std::unique_ptr<llvm::Module> emptyModule(llvm::LLVMContext &Ctx) {
  auto M = std::make_unique<llvm::Module>("q", Ctx);
  M->setSourceFileName("q");
  return M;
}

/// A quoted module, renamed "q", as printed; or its error.
inline std::string printedQuote(llvm::Expected<std::unique_ptr<llvm::Module>> M) {
  if (!M)
    return "error: " + llvm::toString(M.takeError());
  (*M)->setModuleIdentifier("q");
  (*M)->setSourceFileName("q");
  return printModule(**M);
}

inline Outcome run(llvm::StringRef Source, llvm::StringRef Name = "input.ll",
                   const FrontendOptions &Opts = {}) {
  Outcome O;
  O.Ctx = std::make_unique<llvm::LLVMContext>();
  auto M = parseModuleString(Source, Name, *O.Ctx, Opts);
  if (M) {
    O.M = std::move(*M);
    return O;
  }
  llvm::handleAllErrors(
      M.takeError(),
      [&](const DiagnosticError &D) {
        O.Located = D.error().getLineNo() > 0;
        O.Line = D.error().getLineNo();
        O.Column = D.error().getColumnNo();
        O.Message = D.error().getMessage().str();
        llvm::raw_string_ostream OS(O.Printed);
        D.print(OS);
      },
      [&](const llvm::ErrorInfoBase &E) { O.Message = E.message(); });
  return O;
}

} // namespace llq::test

#endif // LLQUOTE_TESTS_UNIT_TESTUTIL_H
