//===- Diagnostics.cpp - Located errors of llquote ------------------------===//
//
// DiagnosticError storage and printing.
//
//===----------------------------------------------------------------------===//

#include "llquote/Diagnostics.h"
#include "Located.h"
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

Error llq::mapDiagnostics(
    Error E, function_ref<SMDiagnostic(const SMDiagnostic &)> Map) {
  return handleErrors(std::move(E),
                      [&](std::unique_ptr<DiagnosticError> D) -> Error {
                        auto Out = std::make_unique<DiagnosticError>(
                            Map(D->diagnostics().front()));
                        for (size_t I = 1; I < D->diagnostics().size(); ++I)
                          Out->addNote(Map(D->diagnostics()[I]));
                        return Error(std::move(Out));
                      });
}

Error llq::remapDiagnostics(Error E, function_ref<uint32_t(uint32_t)> Map,
                            const SourceMgr &SM, unsigned From, unsigned To) {
  const MemoryBuffer *FromBuf = SM.getMemoryBuffer(From);
  auto Move = [&](const SMDiagnostic &D) {
    const char *P = D.getLoc().getPointer();
    if (!P || P < FromBuf->getBufferStart() || P > FromBuf->getBufferEnd())
      return D;
    uint32_t Off = Map(static_cast<uint32_t>(P - FromBuf->getBufferStart()));
    return SM.GetMessage(locAt(SM, To, Off), D.getKind(), D.getMessage());
  };
  return mapDiagnostics(std::move(E), Move);
}
