//===- Diagnostics.cpp - Located errors of llquote ------------------------===//
//
// DiagnosticError storage and printing.
//
//===----------------------------------------------------------------------===//

#include "llquote/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

using namespace llq;
using namespace llvm;

char DiagnosticError::ID = 0;

void DiagnosticError::print(raw_ostream &OS, bool ShowColors) const {
  for (const SMDiagnostic &D : Diags)
    D.print(/*ProgName=*/nullptr, OS, ShowColors);
}

std::error_code DiagnosticError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

Error llq::makeError(const SourceMgr &SM, SMLoc Loc, const Twine &Message,
                     ArrayRef<SMRange> Ranges) {
  return make_error<DiagnosticError>(
      SM.GetMessage(Loc, SourceMgr::DK_Error, Message, Ranges));
}
