//===- Frontend.cpp - Dialect text in, verified module out ----------------===//
//
// The whole pipeline, top to bottom:
//   parseSyntax   text -> concrete syntax tree        (Parse.cpp)
//   spliceAntiquotes  bindings into the text, which is parsed again
//                     (Splice.cpp; only with antiquotes and bindings)
//   checkSelfContainedTypes  types LLVM cannot survive  (SelfContainedTypes.cpp)
//   lowerSyntax   tree -> LLVM assembly + source map  (Lower.cpp)
//   assembleModule  assembly -> llvm::Module          (Assemble.cpp)
//   restoreSSA      variables -> minimal SSA, on IR   (RestoreSSA.cpp)
//   verifyLocated   the LLVM verifier, located        (Verify.cpp)
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include "Assemble.h"
#include "InternalNames.h"
#include "SelfContainedTypes.h"
#include "Lower.h"
#include "Parse.h"
#include "PrintedType.h"
#include "DuplicateMetadata.h"
#include "RestoreSSA.h"
#include "Splice.h"
#include "Verify.h"
#include "llvm/Support/Timer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

using namespace llq;
using namespace llvm;

/// Where \p E points in the source, or null; \p E is left as it was.
static const char *errorPosition(Error &E) {
  const char *Where = nullptr;
  E = handleErrors(std::move(E),
                   [&](std::unique_ptr<DiagnosticError> D) -> Error {
                     Where = D->error().getLoc().getPointer();
                     return Error(std::move(D));
                   });
  return Where;
}

/// The inputs LLVM 19's reader does not survive, refused before it reads
/// them: the earlier of a self-contained type and a duplicate metadata id.
static Error checkBeforeLLVM(const SyntaxTree &Tree, const SourceMgr &SM,
                             unsigned BufferID, const Module *Into) {
  Error Types = checkSelfContainedTypes(Tree, SM, BufferID, Into);
  Error Metadata = checkDuplicateMetadataIds(Tree, SM, BufferID);
  if (!Types)
    return Metadata;
  if (!Metadata)
    return Types;
  const char *T = errorPosition(Types), *MD = errorPosition(Metadata);
  if (MD && (!T || MD < T)) {
    consumeError(std::move(Types));
    return Metadata;
  }
  consumeError(std::move(Metadata));
  return Types;
}

/// Our grammar stops at the first syntax error, while LLVM's assembler also
/// checks meaning as it reads. In text that is plain IR up to the syntax
/// error, LLVM may find an earlier error; the earliest one is the one to show.
/// LLVM reads only the text before our error, which the lexer has already
/// checked for nesting depth and literal length.
static Error firstErrorInSourceOrder(Error SyntaxError, const SyntaxTree &Tree,
                                     const SourceMgr &SM, unsigned BufferID) {
  if (Tree.sawDialect() || Tree.LexicalError)
    return SyntaxError;
  // What LLVM's parser does not survive comes before the syntax error.
  if (Error E = checkBeforeLLVM(Tree, SM, BufferID, nullptr)) {
    consumeError(std::move(SyntaxError));
    return E;
  }
  LoweredText Prefix;
  Prefix.Storage = Tree.Source.substr(0, Tree.ErrorOffset).str();
  Prefix.Map.addVerbatim(0, 0, Tree.ErrorOffset);
  LLVMContext Scratch;
  Expected<std::unique_ptr<Module>> M =
      assembleModule(Prefix, SM, BufferID, Scratch);
  if (M)
    return SyntaxError;
  Error LLVMError = M.takeError();
  const char *Ours = errorPosition(SyntaxError);
  const char *Theirs = errorPosition(LLVMError);
  if (Ours && Theirs && Theirs < Ours) {
    consumeError(std::move(SyntaxError));
    return LLVMError;
  }
  consumeError(std::move(LLVMError));
  return SyntaxError;
}


/// Adds to an error at an antiquote a note where its binding was written,
/// when the binding knows (fragments made with LLQ_FRAGMENT or from a
/// template), and otherwise what the binding holds.
static Error noteBindingOrigin(Error E, const std::vector<AntiquoteSite> &Sites,
                               const Bindings &Bound, const SourceMgr &SM,
                               unsigned BufferID) {
  const char *Start = SM.getMemoryBuffer(BufferID)->getBufferStart();
  return handleErrors(std::move(E), [&](std::unique_ptr<DiagnosticError> D) {
    const char *At = D->error().getLoc().getPointer();
    for (const AntiquoteSite &Site : Sites) {
      if (At != Start + Site.Range.Begin)
        continue;
      auto It = Bound.find(Site.Name);
      if (It == Bound.end())
        break;
      if (!It->second.origin().empty())
        D->addNote(SMDiagnostic(It->second.origin(), SourceMgr::DK_Note,
                                "the text bound to '" + Site.Name +
                                    "' is written here"));
      else
        D->addNote(SMDiagnostic(
            SM.getMemoryBuffer(BufferID)->getBufferIdentifier(),
            SourceMgr::DK_Note,
            "'" + Site.Name + "' is bound to " + describeBound(It->second)));
      break;
    }
    return Error(std::move(D));
  });
}

/// Moves an error inside text read from a file for a binding (`-D x=@FILE`)
/// to that file, with a note at the antiquote it was spliced into.
static Error intoBoundFiles(Error E, const std::vector<SplicedSource> &FromFiles,
                            const std::vector<AntiquoteSite> &Sites,
                            const Bindings &Bound, SourceMgr &SM,
                            unsigned SplicedID, unsigned BufferID) {
  const MemoryBuffer *Buf = SM.getMemoryBuffer(SplicedID);
  return handleErrors(std::move(E), [&](std::unique_ptr<DiagnosticError> D)
                                        -> Error {
    const char *P = D->error().getLoc().getPointer();
    if (!P || P < Buf->getBufferStart() || P > Buf->getBufferEnd())
      return Error(std::move(D));
    auto Off = static_cast<uint32_t>(P - Buf->getBufferStart());
    for (const SplicedSource &S : FromFiles) {
      if (Off < S.Begin || Off > S.End)
        continue;
      const AntiquoteSite &Site = Sites[S.Site];
      const Binding &B = Bound.find(Site.Name)->second;
      unsigned FileID = SM.AddNewSourceBuffer(
          MemoryBuffer::getMemBufferCopy(B.text(), B.origin()), SMLoc());
      auto Moved = std::make_unique<DiagnosticError>(
          SM.GetMessage(locAt(SM, FileID, Off - S.Begin), D->error().getKind(),
                        D->error().getMessage()));
      Moved->addNote(SM.GetMessage(locAt(SM, BufferID, Site.Range.Begin),
                                   SourceMgr::DK_Note,
                                   "the text of '" + B.origin() +
                                       "' is spliced here, for '" + Site.Name +
                                       "'"));
      return Error(std::move(Moved));
    }
    return Error(std::move(D));
  });
}

namespace {
/// Where the text goes: a new module, or one that exists (parseInto).
struct Target {
  LLVMContext &Ctx;
  Module *Into = nullptr;
  std::unique_ptr<Module> Made;
  std::vector<GlobalValue *> Added; ///< Into: what the text added.
};
} // namespace

static Error parseTo(SourceMgr &SM, unsigned BufferID, Target &T,
                     const FrontendOptions &Opts);

/// Restores SSA in the functions lowering rewrote; \p Inserted receives
/// the phis it inserts, for the origins of instructions (Origins.h).
static Error restore(Module &M, const LoweredText &Lowered,
                     const FrontendOptions &Opts, const SourceMgr &SM,
                     unsigned BufferID, InsertedPhis &Inserted) {
  if (Lowered.SSA.empty())
    return Error::success();
  RestoreOptions R;
  R.AllowUndef = Opts.AllowUndef;
  R.Mem2Reg = Opts.SSA == SSAMode::Mem2Reg;
  return restoreSSA(M, Lowered, R, SM, BufferID, &Inserted);
}

/// Replaces the antiquotes by their bindings and reads the result; its
/// diagnostics are moved back to the template.
static Error parseSpliced(StringRef Source,
                          const std::vector<AntiquoteSite> &Sites,
                          const StringMap<uint32_t> &Names, SourceMgr &SM,
                          unsigned BufferID, Target &T,
                          const FrontendOptions &Opts) {
  std::vector<SplicedSource> FromFiles;
  Expected<LoweredText> Spliced = spliceAntiquotes(
      Source, Sites, *Opts.Bound, Names, SM, BufferID, &FromFiles);
  if (!Spliced)
    return Spliced.takeError();
  StringRef Name = SM.getMemoryBuffer(BufferID)->getBufferIdentifier();
  unsigned SplicedID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(Spliced->text(), Name), SMLoc());
  FrontendOptions Inner = Opts;
  Inner.Bound = nullptr; // Bound text is not searched for antiquotes again.
  Inner.Spliced = true;
  Inner.Parsed = nullptr;
  Error E = parseTo(SM, SplicedID, T, Inner);
  if (!E)
    return E;
  if (!FromFiles.empty())
    E = intoBoundFiles(std::move(E), FromFiles, Sites, *Opts.Bound, SM,
                       SplicedID, BufferID);
  return noteBindingOrigin(
      remapDiagnostics(
          std::move(E), [&](uint32_t Off) { return Spliced->Map.toSource(Off); },
          SM, SplicedID, BufferID),
      Sites, *Opts.Bound, SM, BufferID);
}

namespace {
/// What a module held before text was read into it, to put it back if the
/// text turns out to be wrong.
class ModuleSnapshot {
public:
  explicit ModuleSnapshot(Module &M)
      : M(M), Asm(M.getModuleInlineAsm()), DL(M.getDataLayoutStr()),
        Triple(M.getTargetTriple()), SourceName(M.getSourceFileName()) {
    for (GlobalValue &GV : M.global_values())
      Old.insert(&GV);
    for (NamedMDNode &N : M.named_metadata()) {
      auto &Ops = NamedOps[&N];
      for (MDNode *Op : N.operands())
        Ops.push_back(Op);
    }
    for (auto &C : M.getComdatSymbolTable())
      Comdats.insert(C.getKey());
  }

  /// The global values added since, in the module's order.
  std::vector<GlobalValue *> added() const {
    std::vector<GlobalValue *> New;
    for (GlobalValue &GV : M.global_values())
      if (!Old.contains(&GV))
        New.push_back(&GV);
    return New;
  }

  /// A declaration the text defines is set aside under another name while
  /// the text is read, and replaced by the definition afterwards.
  void setAside(GlobalValue *Decl, uint32_t DefinedAt) {
    Aside.push_back({Decl, Decl->getName().str(), DefinedAt});
    Decl->setName(names::DeclaredPrefix + Decl->getName());
  }

  /// A declaration set aside whose definition has another type, and where
  /// the text defines it.
  std::optional<std::pair<const GlobalValue *, uint32_t>> mismatch() const {
    for (const SetAside &A : Aside) {
      GlobalValue *Def = M.getNamedValue(A.Name);
      if (Def && Def->getValueType() != A.Decl->getValueType())
        return std::make_pair(A.Decl, A.DefinedAt);
    }
    return std::nullopt;
  }

  /// Keeps what was read: the declarations set aside give way to their
  /// definitions.
  void commit() {
    for (const SetAside &A : Aside) {
      if (GlobalValue *Def = M.getNamedValue(A.Name)) {
        A.Decl->replaceAllUsesWith(Def);
        A.Decl->eraseFromParent();
      } else {
        A.Decl->setName(A.Name);
      }
    }
  }

  void restore() {
    std::vector<GlobalValue *> New = added();
    for (GlobalValue *GV : New)
      GV->dropAllReferences();
    for (GlobalValue *GV : New) {
      GV->replaceAllUsesWith(PoisonValue::get(GV->getType()));
      GV->eraseFromParent();
    }
    for (const SetAside &A : Aside)
      A.Decl->setName(A.Name);
    std::vector<NamedMDNode *> NewMD;
    for (NamedMDNode &N : M.named_metadata()) {
      auto It = NamedOps.find(&N);
      if (It == NamedOps.end()) {
        NewMD.push_back(&N);
        continue;
      }
      if (N.getNumOperands() == It->second.size())
        continue;
      N.clearOperands();
      for (MDNode *Op : It->second)
        N.addOperand(Op);
    }
    for (NamedMDNode *N : NewMD)
      M.eraseNamedMetadata(N);
    std::vector<std::string> NewComdats;
    for (auto &C : M.getComdatSymbolTable())
      if (!Comdats.contains(C.getKey()))
        NewComdats.push_back(C.getKey().str());
    for (const std::string &C : NewComdats)
      M.getComdatSymbolTable().erase(C);
    M.setModuleInlineAsm(Asm);
    M.setDataLayout(DL);
    M.setTargetTriple(Triple);
    M.setSourceFileName(SourceName);
  }

private:
  Module &M;
  std::string Asm, DL, Triple, SourceName;
  SmallPtrSet<GlobalValue *, 32> Old;
  DenseMap<NamedMDNode *, std::vector<MDNode *>> NamedOps;
  StringSet<> Comdats;
  struct SetAside {
    GlobalValue *Decl;
    std::string Name;
    uint32_t DefinedAt;
  };
  std::vector<SetAside> Aside;
};
} // namespace

/// Reads lowered text into the existing module: on error, the module is put
/// back as it was.
static Error assembleIntoExisting(const LoweredText &Lowered,
                                  const SyntaxTree &Tree, SourceMgr &SM,
                                  unsigned BufferID, Module &M,
                                  const FrontendOptions &Opts,
                                  std::vector<GlobalValue *> &Added) {
  ModuleSnapshot Before(M);
  for (const Node *Top = Tree.Root->First; Top; Top = Top->Next) {
    if (!Top->is(NodeKind::Define) && !Top->is(NodeKind::GlobalVar))
      continue;
    const Node *Name = Top->First;
    while (Name && !Name->is(NodeKind::GlobalRef))
      Name = Name->Next;
    if (!Name)
      continue;
    GlobalValue *Old = M.getNamedValue(nameOfToken(Tree.text(Name)));
    bool IsVar = Top->is(NodeKind::GlobalVar);
    if (Old && Old->isDeclaration() &&
        (IsVar ? isa<GlobalVariable>(Old) : isa<Function>(Old)))
      Before.setAside(Old, Top->Range.Begin);
  }
  Error E = assembleInto(Lowered, SM, BufferID, M);
  std::vector<Function *> NewFunctions;
  InsertedPhis Inserted;
  OriginSource Origins{&Lowered, &Inserted};
  if (!E)
    E = restore(M, Lowered, Opts, SM, BufferID, Inserted);
  if (!E) {
    for (GlobalValue *GV : Before.added())
      if (auto *F = dyn_cast<Function>(GV))
        NewFunctions.push_back(F);
    if (Opts.Verify)
      E = verifyLocated(M, Tree, SM, BufferID, Origins, &NewFunctions);
    if (auto Bad = Before.mismatch(); !E && Bad) {
      E = makeError(SM, locAt(SM, BufferID, Bad->second),
                    "this defines '@" + Bad->first->getName().drop_front(
                        names::DeclaredPrefix.size()) +
                        "', which the module declares with type '" +
                        printed(Bad->first->getValueType()) +
                        "'; a definition must have its declaration's type");
    }
  }
  if (E) {
    Before.restore();
    return E;
  }
  Before.commit();
  Added = Before.added();
  return Error::success();
}

static Error parseTo(SourceMgr &SM, unsigned BufferID, Target &T,
                     const FrontendOptions &Opts) {
  StringRef Source = SM.getMemoryBuffer(BufferID)->getBuffer();
  // A template read before: splice its antiquotes without reading it again.
  if (Opts.Parsed && Opts.Bound && !Opts.Parsed->Sites->empty())
    return parseSpliced(Source, *Opts.Parsed->Sites, *Opts.Parsed->Names, SM,
                        BufferID, T, Opts);
  SyntaxTree Tree(Source);
  std::optional<NamedRegionTimer> Timer;
  auto Phase = [&](StringRef Name, StringRef Desc) {
    Timer.reset();
    if (Opts.TimePhases)
      Timer.emplace(Name, Desc, "llquote", "llquote front end");
  };
  Phase("read", "Read the dialect");
  if (Error E = parseSyntax(Tree, SM, BufferID))
    return firstErrorInSourceOrder(std::move(E), Tree, SM, BufferID);
  if (Opts.TopLevelEntities && Tree.Root->First) {
    // Text that closes the wrapper's function early starts the second
    // entity itself: that is where the error is.
    unsigned N = 0;
    for (const Node *Top = Tree.Root->First; Top; Top = Top->Next)
      ++N;
    if (N > Opts.TopLevelEntities)
      return makeError(SM, locAt(SM, BufferID, Tree.Root->First->Next->Range.Begin),
                       "this closes the function it is emitted into: what "
                       "follows would stand at the module's top level");
  }
  if (!Tree.Antiquotes.empty() && Opts.Bound)
    return parseSpliced(Source, collectAntiquotes(Tree),
                        collectLocalNamesOf(Tree), SM, BufferID, T, Opts);
  if (Error E = checkBeforeLLVM(Tree, SM, BufferID, T.Into))
    return E;
  LowerOptions LowerOpts;
  LowerOpts.AllowUndef = Opts.AllowUndef;
  LowerOpts.Spliced = Opts.Spliced;
  if (T.Into)
    LowerOpts.GlobalTaken = [Into = T.Into](StringRef Name) {
      return Into->getNamedValue(Name) != nullptr;
    };
  Phase("lower", "Lower to LLVM IR with placeholders");
  Expected<LoweredText> Lowered = lowerSyntax(Tree, SM, BufferID, LowerOpts);
  if (!Lowered)
    return Lowered.takeError();
  if (T.Into) {
    Phase("into", "Assemble, restore SSA and verify, into a module");
    return assembleIntoExisting(*Lowered, Tree, SM, BufferID, *T.Into, Opts,
                                T.Added);
  }
  Phase("assemble", "Assemble (LLVM's parser)");
  Expected<std::unique_ptr<Module>> M =
      assembleModule(*Lowered, SM, BufferID, T.Ctx);
  if (!M)
    return M.takeError();
  Phase("ssa", "Restore SSA");
  InsertedPhis Inserted;
  OriginSource Origins{&*Lowered, &Inserted};
  if (Error E = restore(**M, *Lowered, Opts, SM, BufferID, Inserted))
    return E;
  Phase("verify", "Verify");
  if (Opts.Verify)
    if (Error E = verifyLocated(**M, Tree, SM, BufferID, Origins))
      return E;
  T.Made = std::move(*M);
  return Error::success();
}

Expected<std::unique_ptr<Module>>
llq::parseModule(SourceMgr &SM, unsigned BufferID, LLVMContext &Ctx,
                 const FrontendOptions &Opts) {
  Target T{Ctx};
  if (Error E = parseTo(SM, BufferID, T, Opts))
    return std::move(E);
  return std::move(T.Made);
}

Expected<std::vector<GlobalValue *>>
llq::parseInto(SourceMgr &SM, unsigned BufferID, Module &M,
               const FrontendOptions &Opts) {
  Target T{M.getContext(), &M};
  if (Error E = parseTo(SM, BufferID, T, Opts))
    return std::move(E);
  return std::move(T.Added);
}

Expected<std::unique_ptr<Module>>
llq::parseModuleString(StringRef Source, StringRef BufferName,
                       LLVMContext &Ctx, const FrontendOptions &Opts) {
  SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(Source, BufferName), SMLoc());
  return parseModule(SM, ID, Ctx, Opts);
}
