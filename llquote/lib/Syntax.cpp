//===- Syntax.cpp - Concrete syntax tree of the llquote dialect -----------===//
//
// Node construction for the grammar's actions. Group nodes are transient
// lists: adding one to a parent moves its children, so list rules cost O(1)
// per element and the tree has no Group nodes once parsing is done.
//
//===----------------------------------------------------------------------===//

#include "Syntax.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include <cassert>

using namespace llq;

llvm::StringRef llq::antiquoteKindName(AntiquoteKind K) {
  static const char *const Names[] = {
      "dl",  "tt",  "def", "defs",  "bb",  "bbs",   "instr",  "instrs", "type",
      "opr", "const", "id", "gid", "param", "params", "label", "args", "label"};
  return Names[static_cast<unsigned>(K)];
}

void Node::add(Node *Child) {
  if (!Child)
    return;
  if (Child->Kind == NodeKind::Group) {
    if (!Child->First)
      return;
    (Last ? Last->Next : First) = Child->First;
    Last = Child->Last;
    Child->First = Child->Last = nullptr;
    return;
  }
  assert(!Child->Next && "node already has a parent");
  (Last ? Last->Next : First) = Child;
  Last = Child;
}

Node *SyntaxTree::make(NodeKind K, SrcRange R,
                       std::initializer_list<Node *> Children) {
  Node *N = new (Arena.Allocate<Node>()) Node(K, R);
  for (Node *C : Children)
    N->add(C);
  if (K == NodeKind::For || K == NodeKind::While || K == NodeKind::If ||
      K == NodeKind::Break || K == NodeKind::Continue || K == NodeKind::Assign)
    ++NumControl;
  return N;
}

Node *SyntaxTree::inst(Opcode Op, SrcRange R,
                       std::initializer_list<Node *> Operands) {
  Node *N = make(NodeKind::Inst, R, Operands);
  N->Sub = static_cast<uint16_t>(Op);
  return N;
}

Node *SyntaxTree::withResult(Node *Inst, Node *Result) {
  // The result becomes the first child, ahead of the operands.
  Result->Next = Inst->First;
  Inst->First = Result;
  if (!Inst->Last)
    Inst->Last = Result;
  Inst->Range.Begin = Result->Range.Begin;
  return Inst;
}

Node *SyntaxTree::antiquote(AntiquoteKind K, SrcRange R) {
  Node *N = make(NodeKind::Antiquote, R);
  N->Sub = static_cast<uint16_t>(K);
  Antiquotes.push_back(N);
  return N;
}

Node *SyntaxTree::forLoop(bool Downto, SrcRange R,
                          std::initializer_list<Node *> Parts) {
  assert(Parts.size() == 6 && "for loop has six parts");
  Node *N = make(NodeKind::For, R, Parts);
  bool HasStep = Parts.begin()[4] != nullptr;
  N->Sub = (Downto ? ForDownto : 0) | (HasStep ? ForHasStep : 0);
  return N;
}

std::string llq::unescapeAsm(llvm::StringRef Body) {
  std::string Out;
  for (size_t I = 0; I < Body.size(); ++I) {
    if (Body[I] == '\\' && I + 2 < Body.size() &&
        llvm::isHexDigit(Body[I + 1]) && llvm::isHexDigit(Body[I + 2])) {
      Out += static_cast<char>(llvm::hexFromNibbles(Body[I + 1], Body[I + 2]));
      I += 2;
    } else if (Body[I] == '\\' && I + 1 < Body.size() && Body[I + 1] == '\\') {
      Out += '\\';
      ++I;
    } else {
      Out += Body[I];
    }
  }
  return Out;
}

std::string llq::nameOfToken(llvm::StringRef Token) {
  if (!Token.empty() && (Token.front() == '%' || Token.front() == '@'))
    Token = Token.drop_front();
  Token.consume_back(":");
  if (Token.size() >= 2 && Token.front() == '"' && Token.back() == '"')
    return unescapeAsm(Token.drop_front().drop_back());
  return Token.str();
}

std::string llq::asmName(llvm::StringRef Name) {
  bool Plain = !Name.empty() &&
               (!llvm::isDigit(Name[0]) || llvm::all_of(Name, llvm::isDigit));
  for (char C : Name)
    Plain &= llvm::isAlnum(C) || C == '-' || C == '$' || C == '.' || C == '_';
  if (Plain)
    return Name.str();
  std::string S = "\"";
  for (unsigned char C : Name) {
    if (C == '"' || C == '\\' || !llvm::isPrint(C)) {
      S += '\\';
      S += llvm::hexdigit(C >> 4, /*LowerCase=*/false);
      S += llvm::hexdigit(C & 15, /*LowerCase=*/false);
    } else {
      S += static_cast<char>(C);
    }
  }
  return S + "\"";
}

llvm::StringRef llq::whereAntiquoteStands(AntiquoteKind K) {
  switch (K) {
  case AntiquoteKind::DataLayout: return "after 'target datalayout ='";
  case AntiquoteKind::Triple: return "after 'target triple ='";
  case AntiquoteKind::Def:
  case AntiquoteKind::Defs: return "where a top-level entity may";
  case AntiquoteKind::BB:
  case AntiquoteKind::BBs:
  case AntiquoteKind::Instr:
  case AntiquoteKind::Instrs: return "where an instruction or a block may";
  case AntiquoteKind::Type: return "where a type may";
  case AntiquoteKind::Opr:
  case AntiquoteKind::Const: return "where a value, an aggregate index or an alignment may";
  case AntiquoteKind::Id: return "where a local name may";
  case AntiquoteKind::GId: return "where a global name may";
  case AntiquoteKind::Param:
  case AntiquoteKind::Params: return "in a parameter list";
  case AntiquoteKind::Label:
  case AntiquoteKind::LabelDef: return "as a block label or a label operand";
  case AntiquoteKind::Args: return "in a call's argument list";
  }
  return "";
}

using namespace llvm;

bool llq::isTerminator(const Node *N) {
  if (!N->is(NodeKind::Inst))
    return false;
  switch (static_cast<Opcode>(N->Sub)) {
  case Opcode::Ret: case Opcode::Br: case Opcode::Switch:
  case Opcode::IndirectBr: case Opcode::Invoke: case Opcode::CallBr:
  case Opcode::Resume: case Opcode::Unreachable: case Opcode::CleanupRet:
  case Opcode::CatchRet: case Opcode::CatchSwitch:
    return true;
  default:
    return false;
  }
}

StringRef llq::localName(const SyntaxTree &Tree, const Node *N) {
  StringRef S = Tree.text(N);
  S.consume_front("%");
  if (N->is(NodeKind::Label))
    S.consume_back(":");
  return S;
}

void llq::collectLocalNames(const SyntaxTree &Tree, const Node *Body,
                            StringSet<> &Names) {
  forEachNode(Body, [&](const Node *N) {
    if (isLocalName(N))
      Names.insert(localName(Tree, N));
  });
}
