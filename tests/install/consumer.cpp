// Builds a module through the installed llquote package and checks it.
#include "llquote/Frontend.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  llvm::LLVMContext Ctx;
  auto M = llq::parseModuleString(
      "define i32 @answer() {\n  ret i32 42\n}\n", "consumer.ll", Ctx);
  if (!M) {
    llvm::logAllUnhandledErrors(M.takeError(), llvm::errs(), "consumer: ");
    return 1;
  }
  return (*M)->getFunction("answer") ? 0 : 1;
}
