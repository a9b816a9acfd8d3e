//===- Prelude.cpp - Named types and helpers that scalar functions share --===//
//
// A prelude is LLVM text: type definitions (`%V3 = type { ... }`) and
// internal helper functions. It is read once, when it is made:
//
//   1. Each type definition becomes a name of its type. The definitions are
//      resolved in any order (one may name another), and a definition that
//      names itself, an unknown type, or no type of ours is the prelude's
//      error, at its line.
//   2. The kernel form of the text is made: type definitions blanked, every
//      `%T` replaced by T's type and every helper `@h` renamed `@h.llqp<hash>`
//      so that two preludes in one kernel cannot collide. The column edits
//      are kept (Rewritten), so that a diagnostic of the kernel form is
//      reported at the column the user wrote, on the line the user wrote.
//   3. The kernel form is read by the front end into a scratch module; its
//      errors are the prelude's.
//
// A function that names the prelude is rewritten the same way (Fn.cpp), and
// KernelGen puts one copy of each prelude before the functions of a kernel.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Node.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;
using namespace llq;
using namespace llq::detail;

//===-- Rewritten ---------------------------------------------------------===//

void Rewritten::replace(std::vector<std::tuple<size_t, size_t, std::string>> R) {
  llvm::sort(R, [](const auto &A, const auto &B) {
    return std::get<0>(A) < std::get<0>(B);
  });
  std::vector<Edit> Edits;
  std::string Out;
  size_t At = 0;
  unsigned Line = 0;
  size_t LineStart = 0;
  auto Advance = [&](size_t To) {
    for (size_t I = At; I < To; ++I)
      if (Text[I] == '\n') {
        ++Line;
        LineStart = I + 1;
      }
  };
  for (auto &[Off, Len, New] : R) {
    assert(Off >= At && "replacements overlap");
    Out.append(Text, At, Off - At);
    Advance(Off);
    Edits.push_back({Line, unsigned(Off - LineStart), unsigned(Len),
                     unsigned(New.size())});
    Out += New;
    Advance(Off + Len);
    At = Off + Len;
  }
  Out.append(Text, At, std::string::npos);
  Text = std::move(Out);
  Stages.push_back(std::move(Edits));
}

unsigned Rewritten::originalColumn(unsigned Line, unsigned Col) const {
  for (auto S = Stages.rbegin(); S != Stages.rend(); ++S) {
    long Shift = 0;
    bool Inside = false;
    for (const Edit &E : *S) {
      if (E.Line != Line)
        continue;
      long Start = long(E.Col) + Shift;
      if (long(Col) < Start)
        break;
      if (long(Col) < Start + long(E.NewLen)) {
        Col = E.Col;
        Inside = true;
        break;
      }
      Shift += long(E.NewLen) - long(E.Len);
    }
    if (!Inside)
      Col = unsigned(std::max(0L, long(Col) - Shift));
  }
  return Col;
}

bool llq::detail::isNameChar(char C) {
  return isAlnum(C) || C == '.' || C == '_' || C == '$' || C == '-';
}

std::string llq::detail::locatedError(StringRef File, int Line, int Col,
                                      StringRef Message, StringRef LineText) {
  SourceMgr SM;
  return toString(make_error<DiagnosticError>(
      SMDiagnostic(SM, SMLoc(), File, Line, Col, SourceMgr::DK_Error, Message,
                   LineText, {})));
}

Error llq::detail::mapToWritten(Error E, StringRef File, int FirstLine,
                                StringRef Original, const Rewritten &R,
                                function_ref<std::string(std::string)> Names) {
  SmallVector<StringRef, 32> Lines;
  Original.split(Lines, '\n');
  return mapDiagnostics(std::move(E), [&](const SMDiagnostic &D) {
    int L = D.getLineNo() - FirstLine;
    if (!D.getSourceMgr())
      return SMDiagnostic(D.getFilename(), D.getKind(),
                          Names(D.getMessage().str()));
    if (D.getFilename() != File || L < 0 || size_t(L) >= Lines.size())
      return SMDiagnostic(*D.getSourceMgr(), D.getLoc(), D.getFilename(),
                          D.getLineNo(), D.getColumnNo(), D.getKind(),
                          Names(D.getMessage().str()), D.getLineContents(),
                          D.getRanges());
    int Col = D.getColumnNo() < 0
                  ? D.getColumnNo()
                  : int(R.originalColumn(unsigned(L), unsigned(D.getColumnNo())));
    return SMDiagnostic(*D.getSourceMgr(), SMLoc(), D.getFilename(),
                        D.getLineNo(), Col, D.getKind(),
                        Names(D.getMessage().str()), Lines[size_t(L)],
                        ArrayRef<std::pair<unsigned, unsigned>>());
  });
}

void llq::detail::forEachName(StringRef Text, char Sigil,
                              function_ref<void(size_t, size_t)> Visit) {
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == ';') {
      I = std::min(Text.find('\n', I), Text.size());
    } else if (C == '"') {
      I = std::min(Text.find('"', I + 1), Text.size());
    } else if (C == Sigil && I + 1 < Text.size() && isNameChar(Text[I + 1]) &&
               Text[I + 1] != '$' && (I == 0 || !isNameChar(Text[I - 1]))) {
      size_t End = I + 1;
      while (End < Text.size() && isNameChar(Text[End]))
        ++End;
      Visit(I, End - I);
      I = End - 1;
    }
  }
}

static std::string typeList(ArrayRef<Type *> Types) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "(";
  for (size_t I = 0; I < Types.size(); ++I) {
    if (I)
      OS << ", ";
    Types[I]->print(OS);
  }
  OS << ")";
  return S;
}

std::optional<MismatchedCall> llq::detail::mismatchedCall(const Function &F) {
  DenseMap<const Function *, unsigned> Seen;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      const auto *CI = dyn_cast<CallInst>(&I);
      const Function *Callee =
          CI ? dyn_cast<Function>(CI->getCalledOperand()) : nullptr;
      if (!Callee)
        continue;
      unsigned Nth = Seen[Callee]++;
      FunctionType *Want = Callee->getFunctionType(),
                   *Have = CI->getFunctionType();
      if (Want == Have)
        continue;
      std::string Name = Callee->getName().str();
      std::string Message;
      if (Want->params() != Have->params())
        Message = fmt::format("@{} takes {}, but this call gives it {}", Name,
                              typeList(Want->params()),
                              typeList(Have->params()));
      else {
        std::string W, H;
        raw_string_ostream WS(W), HS(H);
        Want->getReturnType()->print(WS);
        Have->getReturnType()->print(HS);
        Message = fmt::format("@{} returns {}, but this call says {}", Name,
                              WS.str(), HS.str());
      }
      return MismatchedCall{Name, Nth, Message};
    }
  return std::nullopt;
}

size_t llq::detail::nthName(StringRef Text, StringRef Name, unsigned Nth,
                            size_t From) {
  size_t Found = StringRef::npos;
  forEachName(Text, '@', [&](size_t Off, size_t Len) {
    if (Found != StringRef::npos || Off < From ||
        Text.substr(Off + 1, Len - 1) != Name)
      return;
    if (Nth == 0)
      Found = Off;
    else
      --Nth;
  });
  return Found;
}

Type *llq::detail::readType(StringRef Text, LLVMContext &Ctx,
                           std::string &Error) {
  // One line, without comments.
  std::string Line;
  SmallVector<StringRef, 4> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines)
    Line += L.take_front(L.find(';')).str() + " ";
  if (StringRef(Line).trim().empty()) {
    Error = "no type is given";
    return nullptr;
  }
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(
      "declare void @llq.type(" + Line + ")\n", Err, Ctx);
  Function *F = M ? M->getFunction("llq.type") : nullptr;
  if (!F || F->arg_size() != 1 || M->size() != 1) {
    Error = M ? "'" + Text.str() + "' is not a type" : Err.getMessage().str();
    return nullptr;
  }
  return F->getArg(0)->getType();
}

//===-- PreludeImpl -------------------------------------------------------===//

Rewritten PreludeImpl::rewrite(StringRef In) const {
  Rewritten R{In.str(), {}};
  std::vector<std::tuple<size_t, size_t, std::string>> Edits;
  forEachName(In, '%', [&](size_t Off, size_t Len) {
    StringRef Name = In.substr(Off + 1, Len - 1);
    for (auto &[T, Ty] : Types)
      if (Name == T)
        Edits.emplace_back(Off, Len, Ty);
  });
  forEachName(In, '@', [&](size_t Off, size_t Len) {
    StringRef Name = In.substr(Off + 1, Len - 1);
    if (llvm::is_contained(Helpers, Name))
      Edits.emplace_back(Off, Len, "@" + Name.str() + Suffix);
  });
  R.replace(std::move(Edits));
  return R;
}

std::string PreludeImpl::unmangle(std::string Message) const {
  for (const std::string &H : Helpers) {
    std::string Long = H + Suffix;
    for (size_t At = Message.find(Long); At != std::string::npos;
         At = Message.find(Long, At + H.size()))
      Message.replace(At, Long.size(), H);
  }
  return Message;
}

namespace {

/// Where a bracket-balanced type text starting at Text[From] ends: the
/// first newline at depth 0 (or the end).
size_t typeEnd(StringRef Text, size_t From) {
  int Depth = 0;
  for (size_t I = From; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '{' || C == '[' || C == '<' || C == '(')
      ++Depth;
    else if (C == '}' || C == ']' || C == '>' || C == ')')
      --Depth;
    else if (C == ';')
      I = std::min(Text.find('\n', I), Text.size()) - 1;
    else if (C == '\n' && Depth <= 0)
      return I;
  }
  return Text.size();
}

class PreludeReader {
public:
  explicit PreludeReader(PreludeImpl &P) : P(P), Text(P.Text) {}

  void read() {
    if (!findTypes() || !resolveTypes() || !findHelpers())
      return;
    P.Suffix = ".llqp" + utohexstr(P.Hash & 0xffffffffffffull, true);
    Rewritten K = P.rewrite(Blanked);
    P.Def = std::make_unique<Template>(K.Text, P.File, P.Line, 1,
                                       Granularity::Definitions);
    LLVMContext Ctx;
    Module M("prelude", Ctx);
    auto Added = P.Def->instantiateInto(M);
    if (!Added) {
      P.Error = toString(mapToWritten(
          Added.takeError(), P.File, int(P.Line), Text, K,
          [&](std::string M) { return P.unmangle(std::move(M)); }));
      P.Def.reset();
      return;
    }
    for (GlobalValue *G : *Added)
      if (auto *F = dyn_cast<Function>(G); F && !F->isDeclaration())
        if (std::optional<MismatchedCall> Bad = mismatchedCall(*F)) {
          std::string Caller = "@" + P.unmangle(F->getName().str());
          size_t From = nthName(Text, Caller.substr(1), 0);
          size_t At = nthName(Text, P.unmangle(Bad->Callee), Bad->Nth,
                              From == StringRef::npos ? 0 : From);
          if (At == StringRef::npos)
            At = From == StringRef::npos ? 0 : From;
          size_t LineStart = Text.take_front(At).rfind('\n') + 1;
          fail(lineOf(At), P.unmangle(Bad->Message), unsigned(At - LineStart));
          P.Def.reset();
          return;
        }
    for (GlobalValue *G : *Added)
      if (auto *F = dyn_cast<Function>(G);
          F && F->isDeclaration() && !F->isIntrinsic())
        fail(lineOfName(G->getName()),
             fmt::format("a prelude defines types and helpers; it declares "
                         "nothing (intrinsics are declared where they are "
                         "called), but it declares @{}",
                         P.unmangle(G->getName().str())));
  }

private:
  struct TypeDef {
    std::string Name, Text;
    unsigned Line; ///< 0-based, in the prelude.
    unsigned Col;  ///< of the type's text.
    bool Resolving = false, Done = false;
  };

  bool fail(unsigned Line, const std::string &Message, unsigned Col = 0) {
    if (P.Error.empty()) {
      SmallVector<StringRef, 32> Lines;
      Text.split(Lines, '\n');
      P.Error = locatedError(P.File, int(P.Line + Line), int(Col), Message,
                             Line < Lines.size() ? Lines[Line] : "");
    }
    return false;
  }

  unsigned lineOf(size_t Offset) const {
    return unsigned(Text.take_front(Offset).count('\n'));
  }
  unsigned lineOfName(StringRef KernelName) const {
    std::string Name = "@" + P.unmangle(KernelName.str());
    size_t At = Text.find(Name);
    return At == StringRef::npos ? 0 : lineOf(At);
  }

  /// Step 1: the `%T = type ...` lines, blanked in Blanked.
  bool findTypes() {
    Blanked = P.Text;
    size_t LineStart = 0;
    while (LineStart < Text.size()) {
      size_t Eol = std::min(Text.find('\n', LineStart), Text.size());
      StringRef L = Text.slice(LineStart, Eol);
      StringRef S = L.ltrim();
      if (S.starts_with("%")) {
        size_t NameEnd = 1;
        while (NameEnd < S.size() && isNameChar(S[NameEnd]))
          ++NameEnd;
        StringRef Rest = S.drop_front(NameEnd).ltrim();
        if (Rest.consume_front("=") &&
            (Rest = Rest.ltrim()).consume_front("type") &&
            (Rest.empty() || !isNameChar(Rest[0]))) {
          size_t TypeStart = Rest.data() - Text.data();
          size_t End = typeEnd(Text, TypeStart);
          StringRef Ty = Text.slice(TypeStart, End).trim();
          if (ConsumeComment(Ty); Ty == "opaque" || Ty.empty())
            return fail(lineOf(LineStart),
                        fmt::format("a prelude's type names an LLVM type of "
                                    "elements; %{} is {}",
                                    S.slice(1, NameEnd).str(),
                                    Ty.empty() ? "empty" : "opaque"),
                        unsigned(L.size() - S.size()));
          std::string Name = S.slice(1, NameEnd).str();
          for (const TypeDef &T : Defs)
            if (T.Name == Name)
              return fail(lineOf(LineStart),
                          fmt::format("%{} is defined twice in the prelude",
                                      Name),
                          unsigned(L.size() - S.size()));
          Defs.push_back({Name, Ty.str(), lineOf(LineStart),
                          unsigned(TypeStart - (LineStart)), false, false});
          for (size_t I = LineStart; I < End; ++I)
            if (Blanked[I] != '\n')
              Blanked[I] = ' ';
          LineStart = End + 1;
          continue;
        }
      }
      LineStart = Eol + 1;
    }
    return true;
  }

  static void ConsumeComment(StringRef &Ty) {
    size_t Semi = Ty.find(';');
    if (Semi != StringRef::npos)
      Ty = Ty.take_front(Semi).rtrim();
  }

  /// Step 1, continued: each type with the named types it uses replaced,
  /// recursively; then checked by LLVM.
  bool resolveTypes() {
    for (TypeDef &T : Defs)
      if (!resolve(T))
        return false;
    LLVMContext Ctx;
    for (TypeDef &T : Defs) {
      std::string Err;
      Type *Ty = readType(T.Text, Ctx, Err);
      if (!Ty)
        return fail(T.Line,
                    fmt::format("%{} is not an LLVM type: {}", T.Name, Err),
                    T.Col);
      std::string S;
      raw_string_ostream OS(S);
      Ty->print(OS);
      P.Types.push_back({T.Name, OS.str()});
    }
    return true;
  }

  bool resolve(TypeDef &T) {
    if (T.Done)
      return true;
    if (T.Resolving)
      return fail(T.Line,
                  fmt::format("%{} contains itself: a prelude's types are "
                              "other names of LLVM types, and cannot be "
                              "recursive",
                              T.Name),
                  T.Col);
    T.Resolving = true;
    std::vector<std::tuple<size_t, size_t, std::string>> Edits;
    std::string Unknown;
    bool Ok = true;
    StringRef In(T.Text);
    std::vector<std::pair<size_t, size_t>> Names;
    forEachName(In, '%', [&](size_t Off, size_t Len) {
      Names.push_back({Off, Len});
    });
    for (auto [Off, Len] : Names) {
      StringRef Name = In.substr(Off + 1, Len - 1);
      auto It = llvm::find_if(Defs, [&](const TypeDef &D) { return D.Name == Name; });
      if (It == Defs.end()) {
        T.Resolving = false;
        return fail(T.Line,
                    fmt::format("%{} names the type %{}, which the prelude "
                                "does not define",
                                T.Name, Name.str()),
                    unsigned(T.Col + Off));
      }
      Ok = resolve(*It);
      if (!Ok)
        return false;
      Edits.emplace_back(Off, Len, It->Text);
    }
    Rewritten R{T.Text, {}};
    R.replace(std::move(Edits));
    T.Text = R.Text;
    T.Resolving = false;
    T.Done = true;
    return true;
  }

  /// Step 2's names: the functions and globals the prelude defines.
  bool findHelpers() {
    SmallVector<StringRef, 32> Lines;
    StringRef(Blanked).split(Lines, '\n');
    for (StringRef L : Lines) {
      StringRef S = L.ltrim();
      bool Define = S.starts_with("define") &&
                    (S.size() == 6 || !isNameChar(S[6]));
      bool Global = S.starts_with("@");
      if (!Define && !Global)
        continue;
      std::optional<std::string> Name;
      forEachName(S, '@', [&](size_t Off, size_t Len) {
        if (!Name)
          Name = S.substr(Off + 1, Len - 1).str();
      });
      if (Name && !llvm::is_contained(P.Helpers, *Name))
        P.Helpers.push_back(*Name);
    }
    return true;
  }

  PreludeImpl &P;
  StringRef Text;
  std::string Blanked;
  std::vector<TypeDef> Defs;
};

} // namespace

//===-- Prelude -----------------------------------------------------------===//

Prelude::Prelude(std::string Text, std::string File, unsigned Line) {
  auto Impl = std::make_shared<PreludeImpl>();
  Impl->Text = std::move(Text);
  Impl->File = std::move(File);
  Impl->Line = Line;
  Impl->Hash = fnv1a(Impl->Text);
  PreludeReader(*Impl).read();
  P = std::move(Impl);
}

Prelude Prelude::atMacro(std::string Text, std::string File, unsigned Line,
                         bool LineIsLast) {
  Line = Template::macroStartLine(
      Line, LineIsLast ? Template::MacroLine::Last : Template::MacroLine::First,
      Text);
  return Prelude(std::move(Text), std::move(File), Line);
}

const std::string &Prelude::text() const { return P->Text; }
bool Prelude::ok() const { return P->Error.empty(); }
const std::string &Prelude::error() const { return P->Error; }
std::string Prelude::where() const {
  return P->File + ":" + std::to_string(P->Line);
}
const std::vector<std::pair<std::string, std::string>> &Prelude::types() const {
  return P->Types;
}
const std::vector<std::string> &Prelude::helpers() const { return P->Helpers; }
