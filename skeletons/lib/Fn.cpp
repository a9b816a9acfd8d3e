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
#include "llvm/AsmParser/Parser.h"
#include "llvm/Support/SourceMgr.h"
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

/// The top-level comma-separated parts of S[Begin, End), trimmed, as
/// (offset, length).
std::vector<std::pair<size_t, size_t>> splitParams(StringRef S, size_t Begin,
                                                   size_t End) {
  std::vector<std::pair<size_t, size_t>> Parts;
  int Depth = 0;
  size_t From = Begin;
  auto Add = [&](size_t To) {
    StringRef Part = S.slice(From, To);
    size_t Lead = Part.size() - Part.ltrim().size();
    Parts.push_back({From + Lead, Part.trim().size()});
  };
  for (size_t I = Begin; I < End; ++I) {
    char C = S[I];
    if (C == '{' || C == '[' || C == '<' || C == '(')
      ++Depth;
    else if (C == '}' || C == ']' || C == '>' || C == ')')
      --Depth;
    else if (C == ',' && Depth == 0) {
      Add(I);
      From = I + 1;
    }
  }
  if (!S.slice(Begin, End).trim().empty())
    Add(End);
  return Parts;
}

/// `array<T>` or `array<T, R>` followed by `%name`, or an error.
Expected<ArrayParam> readArrayParam(StringRef Text) {
  auto Fail = [&](const std::string &Why) {
    return createStringError(
        inconvertibleErrorCode(),
        "'" + Text.str() + "': " + Why +
            "; an array parameter is written 'array<T> %name' or "
            "'array<T, rank> %name', T an element type of arrays");
  };
  StringRef S = Text;
  S.consume_front("array<");
  int Depth = 1;
  size_t Close = 0, Comma = StringRef::npos;
  for (size_t I = 0; I < S.size() && !Close; ++I) {
    char C = S[I];
    if (C == '{' || C == '[' || C == '<' || C == '(')
      ++Depth;
    else if (C == '}' || C == ']' || C == '>' || C == ')') {
      if (--Depth == 0)
        Close = I;
    } else if (C == ',' && Depth == 1)
      Comma = I;
  }
  if (!Close)
    return Fail("its '<' is not closed");
  ArrayParam A;
  StringRef Elem = S.take_front(std::min(Comma, Close)).trim();
  if (Comma != StringRef::npos) {
    StringRef R = S.slice(Comma + 1, Close).trim();
    if (R.getAsInteger(10, A.Rank) || A.Rank > 16)
      return Fail("its rank is '" + R.str() + "', not a number from 0 to 16");
  }
  StringRef Name = S.drop_front(Close + 1).trim();
  if (!Name.consume_front("%") || Name.empty() ||
      !llvm::all_of(Name, isNameChar))
    return Fail("it has no name");
  A.Name = Name.str();
  LLVMContext Ctx;
  std::string Err;
  Type *T = readType(Elem, Ctx, Err);
  if (!T)
    return Fail("'" + Elem.str() + "' is not a type: " + Err);
  A.Type = printType(T);
  std::optional<ElemType> E = elemTypeOf(A.Type);
  if (!E)
    return Fail("arrays hold scalars or structs of scalars, not " + A.Type);
  for (size_t F = 0; F < E->numFields(); ++F)
    A.FieldTypes.push_back(irType(E->field(F)));
  if (A.FieldTypes.size() == 1 && !E->isTuple())
    A.FieldTypes[0] = A.Type;
  return A;
}

/// The parameters an array parameter stands for: `ptr %a.f0, ...,
/// i64 %a.n0, ...`.
std::string arrayParams(const ArrayParam &A) {
  std::vector<std::string> Ps;
  for (size_t F = 0; F < A.FieldTypes.size(); ++F)
    Ps.push_back(fmt::format("ptr %{}.f{}", A.Name, F));
  for (unsigned D = 0; D < A.Rank; ++D)
    Ps.push_back(fmt::format("i64 %{}.n{}", A.Name, D));
  return fmt::format("{}", fmt::join(Ps, ", "));
}

/// The readers of As: `@$gid:arrayK(ptr ..., i64 extents..., i64 index...)`
/// returns the element at the index; Checked, only where the index is in
/// the array (otherwise zero, after calling @llq.read.fault(i64 K)).
std::string readerText(const std::vector<ArrayParam> &As, bool Checked) {
  std::string Out;
  for (size_t K = 0; K < As.size(); ++K) {
    const ArrayParam &A = As[K];
    std::vector<std::string> Ps;
    for (size_t F = 0; F < A.FieldTypes.size(); ++F)
      Ps.push_back(fmt::format("ptr %f{}", F));
    for (unsigned D = 0; D < A.Rank; ++D)
      Ps.push_back(fmt::format("i64 %n{}", D));
    for (unsigned D = 0; D < A.Rank; ++D)
      Ps.push_back(fmt::format("i64 %i{}", D));
    Out += fmt::format("define internal {} $gid:array{}({}) alwaysinline {{\n"
                       "entry:\n",
                       A.Type, K, fmt::join(Ps, ", "));
    if (Checked) {
      Out += "  %ok = i1 true\n";
      for (unsigned D = 0; D < A.Rank; ++D)
        Out += fmt::format("  %in{0} = icmp ult i64 %i{0}, %n{0}\n"
                           "  %ok = and i1 %ok, %in{0}\n",
                           D);
      Out += fmt::format("  br i1 %ok, label %read, label %outside\n"
                         "outside:\n"
                         "  call void @llq.read.fault(i64 {})\n"
                         "  ret {} zeroinitializer\n"
                         "read:\n",
                         K, A.Type);
    }
    Out += "  %at = i64 0\n";
    for (unsigned D = 0; D < A.Rank; ++D)
      Out += fmt::format("  %at = mul i64 %at, %n{0}\n"
                         "  %at = add i64 %at, %i{0}\n",
                         D);
    Out += fmt::format("  %v = {} poison\n", A.Type);
    bool Tuple = A.FieldTypes.size() > 1 || A.FieldTypes[0] != A.Type;
    for (size_t F = 0; F < A.FieldTypes.size(); ++F) {
      const std::string &T = A.FieldTypes[F];
      std::string Mem = T == "i1" ? "i8" : T;
      Out += fmt::format("  %p{0} = getelementptr {1}, ptr %f{0}, i64 %at\n"
                         "  %x{0} = load {1}, ptr %p{0}\n",
                         F, Mem);
      std::string X = fmt::format("%x{}", F);
      if (T == "i1") {
        Out += fmt::format("  %b{0} = trunc i8 %x{0} to i1\n", F);
        X = fmt::format("%b{}", F);
      }
      if (Tuple)
        Out += fmt::format("  %v = insertvalue {} %v, {} {}, {}\n", A.Type, T,
                           X, F);
      else
        Out += fmt::format("  %v = {} {}\n", T, X);
    }
    Out += fmt::format("  ret {} %v\n}}\n", A.Type);
  }
  return Out;
}

/// Reads the function; fills Params, Result and AtomicOp, or Error.
void readFn(FnImpl &P) {
  auto Fail = [&](const std::string &Message) {
    P.Error = P.File + ":" + std::to_string(P.Line) + ": error: " + Message;
  };
  if (P.Uses && !P.Uses->Error.empty()) {
    P.Error = P.Uses->Error + "\nnote: the prelude is named by the function "
                              "of " + P.File + ":" + std::to_string(P.Line);
    return;
  }
  StringRef Written = StringRef(P.Signature).trim();
  Rewritten SigR = P.Uses ? P.Uses->rewrite(Written)
                          : Rewritten{Written.str(), {}};
  Rewritten BodyR = P.Uses ? P.Uses->rewrite(P.Body) : Rewritten{P.Body, {}};
  StringRef Sig = SigR.Text;
  size_t Open = Sig.find('(');
  if (Open == StringRef::npos || Open == 0 || !Sig.ends_with(")"))
    return Fail("a function's signature is its result type and its "
                "parameters, as in 'float (float %a, float %b)', not '" +
                Written.str() + "'");
  std::string Ret = Sig.take_front(Open).trim().str();
  if (Ret == "void")
    return Fail("a scalar function returns a value, which its body assigns "
                "to %r; this signature's result type is void: '" +
                Written.str() + "'");
  // A named type left in the signature is one no prelude defines (LLVM
  // would take it as an opaque type of its own).
  auto UnknownType = [&](StringRef Part, bool HasName) -> std::string {
    std::vector<std::string> Found;
    forEachName(Part, '%', [&](size_t Off, size_t Len) {
      Found.push_back(Part.substr(Off, Len).str());
    });
    if (HasName && !Found.empty() && Part.rtrim().ends_with(Found.back()))
      Found.pop_back();
    if (Found.empty())
      return "";
    std::vector<std::string> Known;
    if (P.Uses)
      for (auto &[Name, Type] : P.Uses->Types)
        Known.push_back("%" + Name);
    return fmt::format(
        "in the function's signature '{}': {} is not a type; {}",
        Written.str(), Found.front(),
        Known.empty()
            ? std::string("named types come from a prelude "
                          "(LLQ_FN(Prelude, Signature, Body))")
            : fmt::format("the prelude of {}:{} defines {}", P.Uses->File,
                          P.Uses->Line, fmt::join(Known, ", ")));
  };
  if (std::string E = UnknownType(Ret, false); !E.empty())
    return Fail(E);
  // Array parameters: each the ptrs and extents it stands for, and calls
  // `@name(` of the body become calls of its reader.
  std::vector<std::tuple<size_t, size_t, std::string>> SigEdits, BodyEdits;
  for (auto [Off, Len] : splitParams(Sig, Open + 1, Sig.size() - 1)) {
    StringRef Part = Sig.substr(Off, Len);
    if (!Part.starts_with("array<")) {
      if (std::string E = UnknownType(Part, true); !E.empty())
        return Fail(E);
      if (!P.Arrays.empty())
        return Fail("'" + Part.str() + "' follows an array parameter; array "
                    "parameters come after the others, as Fn::with gives them");
      continue;
    }
    Expected<ArrayParam> A = readArrayParam(Part);
    if (!A)
      return Fail("in the function's signature: " + toString(A.takeError()));
    if (P.Uses && llvm::is_contained(P.Uses->Helpers, A->Name))
      return Fail("the array parameter %" + A->Name + " has the name of the "
                  "prelude's helper @" + A->Name + "; its elements are read "
                  "as @" + A->Name + "(...)");
    SigEdits.emplace_back(Off, Len, arrayParams(*A));
    P.Arrays.push_back(std::move(*A));
  }
  if (P.Arrays.size() > 64)
    return Fail("a function reads at most 64 arrays");
  SigR.replace(std::move(SigEdits));
  Sig = SigR.Text;
  StringRef Body = BodyR.Text;
  forEachName(Body, '@', [&](size_t Off, size_t Len) {
    StringRef Name = Body.substr(Off + 1, Len - 1);
    auto It = llvm::find_if(P.Arrays,
                            [&](const ArrayParam &A) { return A.Name == Name; });
    if (It == P.Arrays.end())
      return;
    size_t Paren = Body.find_first_not_of(" \t", Off + Len);
    if (Paren == StringRef::npos || Body[Paren] != '(')
      return; // Not a call: the reader's name, which LLVM reports unknown.
    size_t Next = Body.find_first_not_of(" \t\n", Paren + 1);
    bool NoIndex = Next != StringRef::npos && Body[Next] == ')';
    BodyEdits.emplace_back(
        Off, Paren + 1 - Off,
        fmt::format("$gid:array{}({}{}", It - P.Arrays.begin(),
                    arrayParams(*It), NoIndex ? "" : ", "));
  });
  BodyR.replace(std::move(BodyEdits));

  // The header has a line of its own, the one before the LLQ_FN's line, so
  // that the body's lines are the C++ lines the user wrote (a body that
  // starts with a newline, as R"( bodies do, starts on the next C++ line).
  std::string Head = "define internal " + Ret + " $gid:name";
  std::string Text = Head + Sig.drop_front(Open).str() +
                     " alwaysinline { entry:\n" + BodyR.Text + "\n  ret " +
                     Ret + " %r\n}\n";
  unsigned HeadLine = P.Line > 1 ? P.Line - 1 : 1;
  P.Def = std::make_unique<Template>(Text, P.File, HeadLine, 1,
                                     Granularity::Definitions);
  if (!P.Arrays.empty()) {
    P.Readers = std::make_unique<Template>(readerText(P.Arrays, false),
                                           "<readers>", 1, 1,
                                           Granularity::Definitions);
    P.CheckedReaders = std::make_unique<Template>(
        readerText(P.Arrays, true), "<readers>", 1, 1,
        Granularity::Definitions);
  }
  LLVMContext Ctx;
  Module M("fn", Ctx);
  Bindings Names = fnBindings(P, "llq.fn", "");
  if (P.Uses)
    if (auto E = P.Uses->Def->instantiateInto(M); !E)
      return Fail("the prelude cannot be read: " + toString(E.takeError()));
  // The readers are ours; reading them here checks both forms once.
  if (P.Readers) {
    LLVMContext RC;
    Module RM("readers", RC);
    if (auto D = readFaultDeclaration().instantiateInto(RM); !D)
      consumeError(D.takeError());
    if (auto E = P.CheckedReaders->instantiateInto(RM, Names); !E)
      return Fail("the readers of its arrays cannot be read: " +
                  toString(E.takeError()));
    if (auto E = P.Readers->instantiateInto(M, Names); !E)
      return Fail("the readers of its arrays cannot be read: " +
                  toString(E.takeError()));
  }
  auto Added = P.Def->instantiateInto(M, Names);
  if (!Added) {
    // The body's diagnostics at the columns the user wrote, with the names
    // the user wrote.
    auto Names = [&](std::string M) {
      return P.Uses ? P.Uses->unmangle(std::move(M)) : M;
    };
    Error E = mapToWritten(Added.takeError(), P.File, int(HeadLine + 1),
                           P.Body, BodyR, Names);
    E = bodyEndErrors(std::move(E), P, Ret, HeadLine + 1);
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
          Col = int(SigR.originalColumn(0, unsigned(Col)));
          std::string Message =
              ("in the function's signature: " + Names(D.getMessage().str()));
          return SMDiagnostic(*D.getSourceMgr(), SMLoc(), D.getFilename(),
                              int(P.Line), Col, D.getKind(), Message, Written,
                              ArrayRef<std::pair<unsigned, unsigned>>());
        }));
    return;
  }
  Function *F = M.getFunction("llq.fn");
  if (!F)
    return Fail("the function's text defines no function");
  // LLVM takes a call whose types are not its callee's; here it is a
  // mistake, reported at the call.
  if (std::optional<MismatchedCall> Bad = mismatchedCall(*F)) {
    std::string Name = P.Uses ? P.Uses->unmangle(Bad->Callee) : Bad->Callee;
    std::string Message = P.Uses ? P.Uses->unmangle(Bad->Message) : Bad->Message;
    auto Array = llvm::find_if(
        P.Arrays, [&](const ArrayParam &A) { return A.Name == Name; });
    if (Array != P.Arrays.end()) {
      std::vector<std::string> Ix;
      for (unsigned D = 0; D < Array->Rank; ++D)
        Ix.push_back(fmt::format("i64 %i{}", D));
      Message = fmt::format("@{0} reads the array %{0} of rank {1}: it takes "
                            "{1} index{2} and returns {3}, as in 'call {3} "
                            "@{0}({4})'",
                            Name, Array->Rank, Array->Rank == 1 ? "" : "es",
                            Array->Type, fmt::join(Ix, ", "));
    }
    StringRef Body(P.Body);
    size_t At = nthName(Body, Name, Bad->Nth);
    if (At == StringRef::npos)
      At = 0;
    size_t LineStart = Body.take_front(At).rfind('\n') + 1;
    size_t LineEnd = std::min(Body.find('\n', At), Body.size());
    P.Error = locatedError(
        P.File, int(HeadLine + 1 + Body.take_front(At).count('\n')),
        int(At - LineStart), Message, Body.slice(LineStart, LineEnd));
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

uint64_t llq::detail::fnv1a(StringRef S, uint64_t H) {
  for (unsigned char C : S) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return H;
}

Bindings llq::detail::fnBindings(const FnImpl &P, const std::string &Name,
                                 const std::string &Readers) {
  Bindings B;
  B.try_emplace("name", Binding(Name));
  for (size_t K = 0; K < P.Arrays.size(); ++K)
    B.try_emplace("array" + std::to_string(K),
                  Binding(Readers + P.Arrays[K].Name));
  return B;
}

const Template &llq::detail::readFaultDeclaration() {
  static const Template T("declare void @llq.read.fault(i64)\n", "<readers>",
                          1, 1, Granularity::Definitions);
  return T;
}

Fn Fn::atMacro(std::string Signature, std::string Body, std::string File,
               unsigned Line, bool LineIsLast) {
  Line = Template::macroStartLine(
      Line, LineIsLast ? Template::MacroLine::Last : Template::MacroLine::First,
      Body);
  return Fn(std::move(Signature), std::move(Body), std::move(File), Line);
}

static std::shared_ptr<const FnImpl>
makeFn(std::shared_ptr<const PreludeImpl> Uses, std::string Signature,
       std::string Body, std::string File, unsigned Line) {
  auto Impl = std::make_shared<FnImpl>();
  Impl->Signature = std::move(Signature);
  Impl->Body = std::move(Body);
  Impl->File = std::move(File);
  Impl->Line = Line;
  Impl->Id = NextFnId++;
  Impl->Hash = fnv1a(Impl->Body, fnv1a(Impl->Signature + "\n"));
  if (Uses)
    Impl->Hash = fnv1a(std::to_string(Uses->Hash), Impl->Hash);
  Impl->Uses = std::move(Uses);
  readFn(*Impl);
  return Impl;
}

Fn::Fn(std::string Signature, std::string Body, std::string File,
       unsigned Line)
    : P(makeFn(nullptr, std::move(Signature), std::move(Body), std::move(File),
               Line)) {}

Fn::Fn(const Prelude &Uses, std::string Signature, std::string Body,
       std::string File, unsigned Line)
    : P(makeFn(Uses.impl(), std::move(Signature), std::move(Body),
               std::move(File), Line)) {}

Fn Fn::atMacro(const Prelude &Uses, std::string Signature, std::string Body,
               std::string File, unsigned Line, bool LineIsLast) {
  Line = Template::macroStartLine(
      Line, LineIsLast ? Template::MacroLine::Last : Template::MacroLine::First,
      Body);
  return Fn(Uses, std::move(Signature), std::move(Body), std::move(File), Line);
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
