//===- Fn.cpp - Scalar functions quoted in the dialect ----------------------===//
//
// An Fn is read once, when it is made: its signature and body become one
// internal, always-inlined definition, checked by the front end in a scratch
// context. What the skeletons need of it (parameter and result types, the
// atomic operation it is equal to) is kept; its text is spliced into every
// kernel that uses it, renamed there, so LLVM sees one function.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Node.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Function.h"
#include <algorithm>
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include <atomic>

using namespace llvm;
using namespace llq;
using namespace llq::detail;

namespace {

std::atomic<uint64_t> NextFnId{1};

uint64_t fnv1a(StringRef S, uint64_t H = 14695981039346656037ull) {
  for (unsigned char C : S) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return H;
}

std::string printType(Type *T) {
  std::string S;
  raw_string_ostream OS(S);
  T->print(OS);
  return S;
}

/// The atomicrmw operation that computes F(new, old) in place, if F's body
/// is exactly one such operation on its two parameters.
std::string atomicOpOf(const Function &F) {
  if (F.arg_size() != 2 || F.size() != 1 || F.front().size() != 2)
    return "";
  Type *T = F.getReturnType();
  if (T != F.getArg(0)->getType() || T != F.getArg(1)->getType())
    return "";
  if (!(T->isHalfTy() || T->isFloatTy() || T->isDoubleTy() ||
        (T->isIntegerTy() && T->getIntegerBitWidth() >= 8)))
    return "";
  const Instruction &I = F.front().front();
  auto OnArgs = [&](const User &U) {
    if (U.getNumOperands() < 2)
      return false;
    const Value *A = U.getOperand(0), *B = U.getOperand(1);
    return (A == F.getArg(0) && B == F.getArg(1)) ||
           (A == F.getArg(1) && B == F.getArg(0));
  };
  if (auto *BO = dyn_cast<BinaryOperator>(&I)) {
    if (!OnArgs(*BO))
      return "";
    switch (BO->getOpcode()) {
    case Instruction::Add:
      return "add";
    case Instruction::FAdd:
      return "fadd";
    case Instruction::And:
      return "and";
    case Instruction::Or:
      return "or";
    case Instruction::Xor:
      return "xor";
    default:
      return "";
    }
  }
  if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
    if (II->arg_size() != 2 || II->getArgOperand(0) == II->getArgOperand(1))
      return "";
    bool Args = (II->getArgOperand(0) == F.getArg(0) &&
                 II->getArgOperand(1) == F.getArg(1)) ||
                (II->getArgOperand(0) == F.getArg(1) &&
                 II->getArgOperand(1) == F.getArg(0));
    if (!Args)
      return "";
    switch (II->getIntrinsicID()) {
    case Intrinsic::smax:
      return "max";
    case Intrinsic::smin:
      return "min";
    case Intrinsic::umax:
      return "umax";
    case Intrinsic::umin:
      return "umin";
    case Intrinsic::maxnum:
      return "fmax";
    case Intrinsic::minnum:
      return "fmin";
    default:
      return "";
    }
  }
  return "";
}

/// Whether C can be part of a local name after the '%'.
bool isNameChar(char C) {
  return isAlnum(C) || C == '.' || C == '_' || C == '$' || C == '-';
}

/// The errors that LLVM finds past the body's last line (in the `ret` and
/// the `}` that readFn adds) are the body's: a missing `%r`, a result of
/// another type, an instruction or block left open. They are moved to the
/// body's text (its end, or the last assignment of %r) and say what the
/// body must do. BodyLine is the file line of the body's first line.
Error bodyEndErrors(Error E, const FnImpl &P, const std::string &Ret,
                    unsigned BodyLine) {
  StringRef Body(P.Body);
  StringRef Trimmed = Body.rtrim();
  unsigned LastLine = BodyLine + unsigned(Body.count('\n'));
  // Where the body ends: just past its last character.
  size_t EndLineStart = Trimmed.rfind('\n') + 1; // npos + 1 == 0
  unsigned EndLine = BodyLine + unsigned(Trimmed.count('\n'));
  int EndCol = int(Trimmed.size() - EndLineStart);
  // The last assignment of %r, if the body makes one.
  std::optional<std::pair<unsigned, int>> Assign;
  for (size_t At = Body.find("%r"); At != StringRef::npos;
       At = Body.find("%r", At + 2)) {
    bool Starts = At == 0 || !isNameChar(Body[At - 1]);
    bool Ends = At + 2 == Body.size() || !isNameChar(Body[At + 2]);
    if (Starts && Ends && Body.drop_front(At + 2).ltrim(" \t").starts_with("="))
      Assign = {BodyLine + unsigned(Body.take_front(At).count('\n')),
                int(At - (Body.take_front(At).rfind('\n') + 1))};
  }
  auto LineText = [&](unsigned Line) {
    SmallVector<StringRef, 16> Lines;
    Body.split(Lines, '\n');
    unsigned I = Line - BodyLine;
    return I < Lines.size() ? Lines[I].str() : std::string();
  };
  return mapDiagnostics(std::move(E), [&](const SMDiagnostic &D) {
    if (!D.getSourceMgr() || D.getFilename() != P.File ||
        D.getLineNo() <= int(LastLine) || D.getKind() != SourceMgr::DK_Error)
      return D;
    StringRef Msg = D.getMessage();
    std::string Message;
    unsigned Line = EndLine;
    int Col = EndCol;
    if (Msg == "use of undefined value '%r'") {
      Message = "the body does not assign the function's result: it ends "
                "without '%r = ...', of type " + Ret;
    } else if (Msg.starts_with("'%r' defined with type '")) {
      StringRef Type = Msg.drop_front(StringRef("'%r' defined with type '").size());
      Type = Type.take_front(Type.find('\''));
      Message = ("the result %r is " + Type + ", but the signature says the "
                 "function returns " + Ret).str();
      if (Assign)
        std::tie(Line, Col) = *Assign;
    } else if (Body.count('{') > Body.count('}')) {
      Message = "the body ends inside a block: a '{' is not closed by '}'";
    } else {
      Message = "the body ends in the middle of an instruction";
    }
    return SMDiagnostic(*D.getSourceMgr(), SMLoc(), D.getFilename(), int(Line),
                        Col, D.getKind(), Message, LineText(Line),
                        ArrayRef<std::pair<unsigned, unsigned>>());
  });
}

/// Reads the function; fills Params, Result and AtomicOp, or Error.
void readFn(FnImpl &P) {
  StringRef Sig = StringRef(P.Signature).trim();
  size_t Open = Sig.find('(');
  if (Open == StringRef::npos || Open == 0 || !Sig.ends_with(")")) {
    P.Error = P.File + ":" + std::to_string(P.Line) +
              ": error: a function's signature is its result type and its "
              "parameters, as in 'float (float %a, float %b)', not '" +
              Sig.str() + "'";
    return;
  }
  std::string Ret = Sig.take_front(Open).trim().str();
  if (Ret == "void") {
    P.Error = P.File + ":" + std::to_string(P.Line) +
              ": error: a scalar function returns a value, which its body "
              "assigns to %r; this signature's result type is void: '" +
              Sig.str() + "'";
    return;
  }
  // The header has a line of its own, the one before the LLQ_FN's line, so
  // that the body's lines are the C++ lines the user wrote (a body that
  // starts with a newline, as R"( bodies do, starts on the next C++ line).
  std::string Head = "define internal " + Ret + " $gid:name";
  std::string Text = Head + Sig.drop_front(Open).str() +
                     " alwaysinline { entry:\n" + P.Body + "\n  ret " + Ret +
                     " %r\n}\n";
  unsigned HeadLine = P.Line > 1 ? P.Line - 1 : 1;
  P.Def = std::make_unique<Template>(Text, P.File, HeadLine, 1,
                                     Granularity::Definitions);
  LLVMContext Ctx;
  Module M("fn", Ctx);
  auto Added = P.Def->instantiateInto(M, {{"name", "f"}});
  if (!Added) {
    Error E = bodyEndErrors(Added.takeError(), P, Ret, HeadLine + 1);
    // An error in the header is in the signature: report it at the LLQ_FN's
    // line, on the signature as written, not on the generated header.
    size_t Prefix = std::string("define internal ").size();
    size_t Name = std::string(" $gid:name").size();
    P.Error = toString(mapDiagnostics(
        std::move(E), [&](const SMDiagnostic &D) -> SMDiagnostic {
          if (!D.getSourceMgr() || D.getLineNo() != int(HeadLine) ||
              D.getFilename() != P.File ||
              !StringRef(D.getLineContents()).starts_with("define internal "))
            return D;
          int Col = D.getColumnNo();
          if (Col >= int(Prefix + Ret.size() + Name))
            Col -= int(Prefix + Name) - int(Open - Ret.size());
          else
            Col = std::max(0, Col - int(Prefix));
          std::string Message =
              ("in the function's signature: " + D.getMessage()).str();
          return SMDiagnostic(*D.getSourceMgr(), SMLoc(), D.getFilename(),
                              int(P.Line), Col, D.getKind(), Message, Sig,
                              ArrayRef<std::pair<unsigned, unsigned>>());
        }));
    return;
  }
  Function *F = M.getFunction("f");
  if (!F) {
    P.Error = P.File + ":" + std::to_string(P.Line) +
              ": error: the function's text defines no function";
    return;
  }
  for (Argument &A : F->args()) {
    P.Params.push_back(printType(A.getType()));
    P.ParamNames.push_back(A.getName().str());
  }
  P.Result = printType(F->getReturnType());
  P.AtomicOp = atomicOpOf(*F);
}

} // namespace

Fn Fn::atMacro(std::string Signature, std::string Body, std::string File,
               unsigned Line, bool LineIsLast) {
  Line = Template::macroStartLine(
      Line, LineIsLast ? Template::MacroLine::Last : Template::MacroLine::First,
      Body);
  return Fn(std::move(Signature), std::move(Body), std::move(File), Line);
}

Fn::Fn(std::string Signature, std::string Body, std::string File,
       unsigned Line) {
  auto Impl = std::make_shared<FnImpl>();
  Impl->Signature = std::move(Signature);
  Impl->Body = std::move(Body);
  Impl->File = std::move(File);
  Impl->Line = Line;
  Impl->Id = NextFnId++;
  Impl->Hash = fnv1a(Impl->Body, fnv1a(Impl->Signature + "\n"));
  readFn(*Impl);
  P = std::move(Impl);
}

bool Fn::ok() const {
  return P->Error.empty() && (!Binds || Binds->Error.empty());
}
const std::string &Fn::error() const {
  if (P->Error.empty() && Binds && !Binds->Error.empty())
    return Binds->Error;
  return P->Error;
}

const std::vector<std::pair<unsigned, Scalar>> &Fn::bound() const {
  static const std::vector<std::pair<unsigned, Scalar>> None;
  return Binds ? Binds->Values : None;
}

std::vector<std::string> Fn::openParamTypes() const {
  std::vector<std::string> Open;
  const std::vector<std::pair<unsigned, Scalar>> &B = bound();
  for (unsigned I = 0; I < P->Params.size(); ++I)
    if (llvm::none_of(B, [I](const auto &V) { return V.first == I; }))
      Open.push_back(P->Params[I]);
  return Open;
}

Fn Fn::bind(const std::string &Name, const Scalar &V, const char *File,
            unsigned Line) const {
  Fn F = *this;
  auto B = std::make_shared<FnBinds>(Binds ? *Binds : FnBinds());
  auto Fail = [&](std::string Message) {
    if (B->Error.empty())
      B->Error = fmt::format("{}:{}: error: bind: {}", File, Line, Message);
  };
  std::string Bare = StringRef(Name).starts_with("%") ? Name.substr(1) : Name;
  auto It = llvm::find(P->ParamNames, Bare);
  if (!P->Error.empty()) {
    // The function's own mistake is the one reported.
  } else if (It == P->ParamNames.end()) {
    std::vector<std::string> Names;
    for (const std::string &N : P->ParamNames)
      Names.push_back("%" + N);
    Fail(fmt::format("the function of {} has no parameter %{} (its "
                     "parameters: {})",
                     where(), Bare, fmt::join(Names, ", ")));
  } else {
    unsigned Pos = unsigned(It - P->ParamNames.begin());
    if (irType(V.type()) != P->Params[Pos]) {
      Fail(fmt::format("parameter %{} of the function of {} is {}, but the "
                       "value given is {}",
                       Bare, where(), P->Params[Pos], irType(V.type())));
    } else {
      auto At = llvm::find_if(B->Values,
                              [Pos](const auto &X) { return X.first == Pos; });
      if (At != B->Values.end())
        At->second = V;
      else
        B->Values.push_back({Pos, V});
      llvm::sort(B->Values, [](const auto &X, const auto &Y) {
        return X.first < Y.first;
      });
    }
  }
  F.Binds = std::move(B);
  return F;
}
std::string Fn::where() const { return P->File + ":" + std::to_string(P->Line); }
const std::vector<std::string> &Fn::paramTypes() const { return P->Params; }
const std::string &Fn::resultType() const { return P->Result; }
uint64_t Fn::id() const { return P->Id; }
