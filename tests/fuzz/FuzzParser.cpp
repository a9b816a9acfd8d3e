//===- FuzzParser.cpp - libFuzzer target for the llquote front end --------===//
//
// Any byte string must come back as a module or as a DiagnosticError. A
// crash, a sanitizer report, a hang or any other kind of error is a finding.
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::LLVMContext Ctx;
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto M = llq::parseModuleString(Input, "fuzz.ll", Ctx);
  if (M)
    return 0;
  // Every failure must be a DiagnosticError; anything else is a finding.
  llvm::handleAllErrors(
      M.takeError(), [](const llq::DiagnosticError &) {},
      [](const llvm::ErrorInfoBase &) { std::abort(); });
  return 0;
}
