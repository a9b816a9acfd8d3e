//===- Frontend.h - Dialect text in, verified module out --------*- C++ -*-===//
//
// The entry point of the llquote front end. Plain LLVM 19 IR is a strict
// subset of the dialect: such input comes out as the module llvm-as would
// build from it, with its value names and meaning unchanged.
//
// Errors are DiagnosticErrors located in the user's source buffer, including
// those that LLVM's assembler and verifier find after lowering.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_FRONTEND_H
#define LLQUOTE_FRONTEND_H

#include "llquote/Binding.h"
#include "llquote/Diagnostics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include <memory>

namespace llq {

/// How reassigned variables become SSA.
enum class SSAMode {
  Braun,  ///< Braun et al. 2013, on the fly, minimal; the default.
  Mem2Reg ///< Reference: a stack slot per variable, then LLVM's mem2reg.
};

struct FrontendOptions {
  /// Run the LLVM verifier on the result. Tests of ill-formed IR turn it off.
  bool Verify = true;
  /// A read of a variable that is not assigned on every path to it becomes
  /// poison instead of an error.
  bool AllowUndef = false;
  SSAMode SSA = SSAMode::Braun;
  /// Time each phase (read, lower, assemble, SSA, verify) in LLVM's timer
  /// group "llquote"; the report is printed at llvm_shutdown, as for
  /// -time-passes.
  bool TimePhases = false;
  /// Values for the text's antiquotes; without them an antiquote is an
  /// "unbound antiquote" error.
  const Bindings *Bound = nullptr;
  /// Module templates only: build the IR of a template whose text is in
  /// the subset a program covers (default options, antiquotes of types and
  /// operands) directly, without reading text; off, always splice the
  /// bindings in and read the result. The module is the same either way,
  /// and any error is reported by the reading path.
  bool Replay = true;
  /// Set for text spliced from a template (internal): there, a function
  /// that only reassigns a name uses the dialect too.
  bool Spliced = false;
  /// Set by templates (internal): the antiquotes and local names read when
  /// the template was first checked, so that its text is not parsed again
  /// before the bindings are spliced in.
  const struct ParsedAntiquotes *Parsed = nullptr;
  /// Set by emit() (internal): how many top-level entities the text has,
  /// bindings spliced in or not, the first a function. Text bound to an
  /// antiquote that closes that function and goes on at the top level is an
  /// error where it goes on.
  unsigned TopLevelEntities = 0;
};

/// Parses the dialect text in buffer \p BufferID of \p SM into a module.
/// \p SM must outlive nothing returned: diagnostics carry their own copies.
llvm::Expected<std::unique_ptr<llvm::Module>>
parseModule(llvm::SourceMgr &SM, unsigned BufferID, llvm::LLVMContext &Ctx,
            const FrontendOptions &Opts = {});

/// Reads the dialect text in buffer \p BufferID of \p SM into the existing
/// module \p M: it may use M's globals and named types, and a function or
/// variable it defines may be declared in M already (the declaration is
/// replaced). Returns the global values it added, in M's order. The new
/// functions are verified when \p Opts says so. On error, \p M is as it was.
llvm::Expected<std::vector<llvm::GlobalValue *>>
parseInto(llvm::SourceMgr &SM, unsigned BufferID, llvm::Module &M,
          const FrontendOptions &Opts = {});

/// Convenience form: parses \p Source, naming it \p BufferName in diagnostics.
llvm::Expected<std::unique_ptr<llvm::Module>>
parseModuleString(llvm::StringRef Source, llvm::StringRef BufferName,
                  llvm::LLVMContext &Ctx, const FrontendOptions &Opts = {});

/// Refuses a call, in \p M, to an intrinsic of another target than \p TT's
/// (`llvm.nvvm.*` on x86-64): code generation would stop the process on it.
/// The error is located at the call in buffer \p BufferID of \p SM, which
/// \p M was built from, and names the intrinsic and its target.
llvm::Error checkTargetIntrinsics(const llvm::Module &M, const llvm::Triple &TT,
                                  const llvm::SourceMgr &SM, unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_FRONTEND_H
