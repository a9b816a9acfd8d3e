//===- Assemble.cpp - LLVM assembly text to llvm::Module ------------------===//
//
// Hands lowered text to LLVM's assembler. Its diagnostics carry a line and a
// column of the lowered text; they are turned into an offset there, mapped
// to the source, and re-issued against the user's buffer.
//
// The assembler runs as llvm-as runs it: without the debug-info upgrade,
// which verifies the module and aborts the process when it is broken. The
// verifier runs afterwards, as its own step, and reports instead.
//
//===----------------------------------------------------------------------===//

#include "Assemble.h"
#include "Parse.h"
#include "Tokens.h"
#include "llquote/Diagnostics.h"
#include "llvm/AsmParser/LLParser.h"
#include "llvm/AsmParser/SlotMapping.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include <mutex>
#include <vector>

using namespace llq;
using namespace llvm;

/// The offset of 1-based \p Line, 0-based \p Col in \p Text, clamped to it.
static uint32_t offsetOf(StringRef Text, int Line, int Col) {
  size_t Pos = 0;
  for (int L = 1; L < Line; ++L) {
    size_t NL = Text.find('\n', Pos);
    if (NL == StringRef::npos)
      return static_cast<uint32_t>(Text.size());
    Pos = NL + 1;
  }
  size_t EOL = std::min(Text.find('\n', Pos), Text.size());
  return static_cast<uint32_t>(std::min(Pos + std::max(Col, 0), EOL));
}

/// \p Message with each quoted local name that lowering made ('%x.2',
/// '%x.load', '%x.slot') replaced by the variable's own ('%x').
static std::string sourceNames(StringRef Message, const LoweredText &L) {
  if (L.SourceNames.empty())
    return Message.str();
  std::string Out;
  while (!Message.empty()) {
    size_t Open = Message.find("'%");
    if (Open == StringRef::npos)
      break;
    // A quoted name ends at the quote after it; "%\"a b\"" holds no '.
    size_t Close = Message.find('\'', Open + 2);
    if (Close == StringRef::npos)
      break;
    StringRef Token = Message.slice(Open + 1, Close);
    Out += Message.take_front(Open + 1);
    auto It = L.SourceNames.find(nameOfToken(Token));
    Out += It == L.SourceNames.end() ? Token.str() : "%" + asmName(It->second);
    Message = Message.drop_front(Close);
  }
  return Out + Message.str();
}

static Error relocate(const SMDiagnostic &D, const LoweredText &L,
                      const SourceMgr &SM, unsigned BufferID) {
  std::string Message = sourceNames(D.getMessage(), L);
  if (D.getLineNo() <= 0)
    return make_error<DiagnosticError>(
        SMDiagnostic(D.getFilename(), D.getKind(), Message));
  uint32_t Out = offsetOf(L.text(), D.getLineNo(), D.getColumnNo());
  SMLoc Loc = locAt(SM, BufferID, L.Map.toSource(Out));
  return make_error<DiagnosticError>(SM.GetMessage(Loc, D.getKind(), Message));
}

/// Puts the lowered text in \p LoweredSM, under the source buffer's name.
static void addLowered(SourceMgr &LoweredSM, const LoweredText &L,
                       const SourceMgr &SM, unsigned BufferID) {
  StringRef Name = SM.getMemoryBuffer(BufferID)->getBufferIdentifier();
  LoweredSM.AddNewSourceBuffer(
      MemoryBuffer::getMemBuffer(L.text(), Name, /*RequiresNullTerminator=*/true),
      SMLoc());
}

/// Whether \p Text may hold debug metadata that LLVM 19's reader leaves
/// broken when it fails: a member (`DW_TAG_member`) whose scope is a
/// composite type with an `identifier:`. After an error found while such
/// metadata waits for forward references, destroying the context crashes
/// (`llvm-as-19` does too).
static bool mayLeaveBrokenMetadata(StringRef Text) {
  return Text.contains("DW_TAG_member") && Text.contains("identifier:");
}

/// Keeps a context whose destruction would crash: it is never destroyed.
/// It stays reachable, so leak checkers do not report it.
static void keepForever(std::unique_ptr<LLVMContext> Ctx) {
  static std::mutex Lock;
  static auto *Kept = new std::vector<LLVMContext *>;
  std::lock_guard<std::mutex> Guard(Lock);
  Kept->push_back(Ctx.release());
}

/// A copy of \p M in \p Ctx, through bitcode; null if it cannot be made.
static std::unique_ptr<Module> copyModule(const Module &M, LLVMContext &Ctx) {
  SmallVector<char, 0> Bytes;
  raw_svector_ostream OS(Bytes);
  WriteBitcodeToFile(M, OS);
  Expected<std::unique_ptr<Module>> Copy = parseBitcodeFile(
      MemoryBufferRef(StringRef(Bytes.data(), Bytes.size()), "copy"), Ctx);
  if (!Copy) {
    consumeError(Copy.takeError());
    return nullptr;
  }
  return std::move(*Copy);
}

/// Reads \p L into \p M, in M's context.
static Error readInto(const LoweredText &L, const SourceMgr &SM,
                      unsigned BufferID, Module &M) {
  SMDiagnostic Diag;
  SourceMgr LoweredSM;
  addLowered(LoweredSM, L, SM, BufferID);
  LLParser Parser(L.text(), LoweredSM, Diag, &M, /*Index=*/nullptr,
                  M.getContext());
  if (Parser.Run(/*UpgradeDebugInfo=*/false))
    return relocate(Diag, L, SM, BufferID);
  return Error::success();
}

/// For text of the dangerous shape, a first read in a context of its own,
/// into a copy of \p Into (through bitcode) or into a new module: LLVM's
/// error, with that context kept forever, or success (also when the text
/// has not that shape, or the copy cannot be made).
static Error tryApart(const LoweredText &L, const SourceMgr &SM,
                      unsigned BufferID, const Module *Into) {
  if (!mayLeaveBrokenMetadata(L.text()))
    return Error::success();
  auto Trial = std::make_unique<LLVMContext>();
  Trial->setDiagnosticHandlerCallBack(
      [](const DiagnosticInfo *, void *) {}, nullptr);
  std::unique_ptr<Module> M =
      Into ? copyModule(*Into, *Trial)
           : std::make_unique<Module>(
                 SM.getMemoryBuffer(BufferID)->getBufferIdentifier(), *Trial);
  if (!M)
    return Error::success();
  Error E = readInto(L, SM, BufferID, *M);
  if (E)
    keepForever(std::move(Trial));
  return E;
}

Error llq::assembleInto(const LoweredText &L, const SourceMgr &SM,
                       unsigned BufferID, Module &M) {
  if (Error E = tryApart(L, SM, BufferID, &M))
    return E;
  return readInto(L, SM, BufferID, M);
}

Expected<Type *> llq::assembleType(const LoweredText &L, const SourceMgr &SM,
                                   unsigned BufferID, const Module &M) {
  SMDiagnostic Diag;
  SourceMgr LoweredSM;
  addLowered(LoweredSM, L, SM, BufferID);
  // Named types are the context's: those of the module, and any other the
  // text names that exists. A name that does not is an error, not a new
  // opaque type.
  SlotMapping Slots;
  for (StructType *T : M.getIdentifiedStructTypes())
    if (T->hasName())
      Slots.NamedTypes[T->getName()] = T;
  StringRef Text = L.text();
  for (const Token &T : lexTokens(Text)) {
    if (T.Class != Token::LocalName)
      continue;
    std::string Name = nameOfToken(Text.slice(T.Range.Begin, T.Range.End));
    if (Slots.NamedTypes.count(Name))
      continue;
    if (StructType *Ty = StructType::getTypeByName(M.getContext(), Name))
      Slots.NamedTypes[Name] = Ty;
    else
      return makeError(SM, locAt(SM, BufferID, L.Map.toSource(T.Range.Begin)),
                       "use of undefined type named '" + Name + "'");
  }
  LLParser Parser(L.text(), LoweredSM, Diag, const_cast<Module *>(&M),
                  /*Index=*/nullptr, M.getContext(), &Slots);
  Type *Ty = nullptr;
  unsigned Read = 0;
  if (Parser.parseTypeAtBeginning(Ty, Read, &Slots))
    return relocate(Diag, L, SM, BufferID);
  // Only blanks and comments may follow the type.
  for (size_t I = Read; I < Text.size(); ++I) {
    if (Text[I] == ';')
      I = std::min(Text.find('\n', I), Text.size());
    else if (!isSpace(Text[I]))
      return makeError(SM, locAt(SM, BufferID, L.Map.toSource(I)),
                       "expected the end of the type");
  }
  return Ty;
}

Expected<std::unique_ptr<Module>>
llq::assembleModule(const LoweredText &L, const SourceMgr &SM,
                    unsigned BufferID, LLVMContext &Ctx) {
  if (Error E = tryApart(L, SM, BufferID, nullptr))
    return std::move(E);
  auto M = std::make_unique<Module>(
      SM.getMemoryBuffer(BufferID)->getBufferIdentifier(), Ctx);
  if (Error E = readInto(L, SM, BufferID, *M))
    return std::move(E);
  return std::move(M);
}
