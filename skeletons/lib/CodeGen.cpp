//===- CodeGen.cpp - Fused element code, slots and kernel entry points ----===//
//
// KernelGen writes, as hygienic fragments of the quoted templates below, the
// code that computes a producer's element at an index: the producers above
// a consumer are inlined into it here, which is all that fusion is. Each
// fragment exports the value it computes (Fragment::value), which the next
// is given as an operand; no name is invented by the generator. Every
// run-time value the code reads (a buffer, an extent, a constant) becomes
// an argument slot, so the kernel depends on the structure of the
// expression only.
//
// Launch fills the argument block from the same slots for one run, walking
// the tree in the same preorder as KernelGen numbered it.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

/// Each phase's exported entry point: unpacks the argument block and calls
/// the phase's body, whose pointer parameters are noalias.
const Template EntryPoint = LLQ_DEFINITIONS(R"(
define void $gid:entry(i64 %start, i64 %end, ptr %args) {
entry:
  $instrs:unpack
  call void $gid:body(i64 %start, i64 %end, $args:args)
  ret void
})");

/// Slot K of the argument block into the parameter slot names; a bool
/// travels as a byte.
const Template UnpackSlot = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr i64, ptr $opr:args, i64 $const:k
  $id:slot = load $type:t, ptr %p
)");
const Template UnpackBool = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr i64, ptr $opr:args, i64 $const:k
  %b = load i8, ptr %p
  $id:slot = trunc i8 %b to i1
)");

/// A typed operand, for the arguments of a call.
const Template TypedArg = LLQ_OPERAND(R"($type:t $opr:v)");

const Template CallFn = LLQ_HYGIENIC_INSTRS(R"(
  %r = call $type:rt $gid:f($args:args)
)");

/// One field of an element in memory, and into the tuple being built.
const Template LoadField = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr $type:mem, ptr $opr:buf, i64 $opr:ix
  %v = load $type:mem, ptr %p
)");
const Template LoadBool = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr i8, ptr $opr:buf, i64 $opr:ix
  %b = load i8, ptr %p
  %v = trunc i8 %b to i1
)");
const Template InsertField = LLQ_HYGIENIC_INSTRS(R"(
  %agg = insertvalue $type:tuple $opr:into, $type:t $opr:v, $const:f
)");
const Template ExtractField = LLQ_HYGIENIC_INSTRS(R"(
  %v = extractvalue $type:tuple $opr:agg, $const:f
)");
const Template StoreField = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr $type:mem, ptr $opr:buf, i64 $opr:ix
  store $type:mem $opr:v, ptr %p
)");
const Template StoreFieldNonTemporal = LLQ_HYGIENIC_INSTRS(R"(
  %p = getelementptr $type:mem, ptr $opr:buf, i64 $opr:ix
  store $type:mem $opr:v, ptr %p, !nontemporal !{i32 1}
)");
const Template StoreBool = LLQ_HYGIENIC_INSTRS(R"(
  %z = zext i1 $opr:v to i8
  %p = getelementptr i8, ptr $opr:buf, i64 $opr:ix
  store i8 %z, ptr %p
)");

/// Index arithmetic: one step of a row-major position, and of its reverse.
const Template LinearStep = LLQ_HYGIENIC_INSTRS(R"(
  %m = mul i64 $opr:l, $opr:extent
  %l = add i64 %m, $opr:ix
)");
const Template MultiStep = LLQ_HYGIENIC_INSTRS(R"(
  %i = srem i64 $opr:q, $opr:extent
  %q = sdiv i64 $opr:q, $opr:extent
)");

/// enumFromN's element at position L.
const Template EnumFloat = LLQ_HYGIENIC_INSTRS(R"(
  %v = sitofp i64 $opr:l to $type:t
  %e = fadd $type:t $opr:start, %v
)");
const Template EnumInt = LLQ_HYGIENIC_INSTRS(R"(
  %v = trunc i64 $opr:l to $type:t
  %e = add $type:t $opr:start, %v
)");
const Template EnumI64 = LLQ_HYGIENIC_INSTRS(R"(
  %e = add i64 $opr:start, $opr:l
)");

/// Whether a signed index lies in [0, Extent), and so far.
const Template InRange = LLQ_HYGIENIC_INSTRS(R"(
  %ge = icmp sge i64 $opr:ix, 0
  %lt = icmp slt i64 $opr:ix, $opr:extent
  %in = and i1 %ge, %lt
  %ok = and i1 $opr:sofar, %in
)");
/// Whether index Ix lies in [0, Extent), and so far, as an unsigned test.
const Template InBounds = LLQ_HYGIENIC_INSTRS(R"(
  %in = icmp ult i64 $opr:ix, $opr:extent
  %ok = and i1 $opr:sofar, %in
)");
/// A source's element read only at an index inside it; otherwise the
/// node's number goes to the fault word, and the element is zero.
const Template GuardedRead = LLQ_HYGIENIC_INSTRS(R"(
  %v = $type:t zeroinitializer
  if $opr:ok {
    $instrs:read
    %v = $type:t $opr:x
  } else {
    store atomic i64 $const:node, ptr $opr:fault monotonic, align 8
  }
)");
/// A variable of the skeleton's template set to a value.
const Template AssignVar = LLQ_HYGIENIC_INSTRS(R"(
  $id:var = $type:t $opr:v
)");

/// reverse: position n - 1 - i.
const Template Reversed = LLQ_HYGIENIC_INSTRS(R"(
  %last = sub i64 $opr:extent, 1
  %rv = sub i64 %last, $opr:ix
)");

/// take, drop, init, tail: the source's innermost index.
const Template Shifted = LLQ_HYGIENIC_INSTRS(R"(
  %j = add i64 $opr:ix, $opr:offset
)");
/// concat: the second array's innermost index, for i >= n.
const Template Unshifted = LLQ_HYGIENIC_INSTRS(R"(
  %j = sub i64 $opr:ix, $opr:split
)");
/// concat: the element of the first array below the split, else of the
/// second; only the array the element is in is read.
const Template Concatenated = LLQ_HYGIENIC_INSTRS(R"(
  %first = icmp slt i64 $opr:ix, $opr:split
  if %first {
    $instrs:reada
    %v = $type:t $opr:a
  } else {
    $instrs:readb
    %v = $type:t $opr:b
  }
)");

} // namespace

llvm::Error llq::detail::failure(const std::string &Message) {
  return llvm::make_error<llvm::StringError>(Message,
                                             llvm::inconvertibleErrorCode());
}

//===-- KernelGen ---------------------------------------------------------===//

KernelGen::KernelGen(const Node &Root, std::string Name, const Backend &B,
                     llvm::LLVMContext &Ctx, bool Checks)
    : Root(Root), Name(std::move(Name)), B(B), Ctx(Ctx) {
  std::vector<const Node *> Order = preorder(Root);
  for (size_t I = 0; I < Order.size(); ++I)
    Index.emplace(Order[I], unsigned(I));
  if (Checks)
    FaultParam = fault().text();
}

std::vector<uint64_t> KernelGen::functionHashes() const {
  std::vector<uint64_t> Hashes;
  for (const FnImpl *F : Fns)
    Hashes.push_back(F->Hash);
  return Hashes;
}

unsigned KernelGen::indexOf(const Node &N) const {
  auto It = Index.find(&N);
  assert(It != Index.end() && "node outside the kernel's tree");
  return It->second;
}

std::optional<Fragment> KernelGen::quote(const Template &T,
                                         const Bindings &Bound,
                                         std::vector<std::string> Names) {
  llvm::Expected<Fragment> F = T.fragment(Bound, std::move(Names));
  if (F)
    return std::move(*F);
  std::string Message = llvm::toString(F.takeError());
  if (Failed.empty())
    Failed = Message;
  return std::nullopt;
}

std::vector<Operand> KernelGen::emitAll(Code &C, const Template &T,
                                        const Bindings &Bound,
                                        const std::vector<std::string> &Exports) {
  std::vector<Operand> Values;
  std::optional<Fragment> F = quote(T, Bound, Exports);
  for (const std::string &E : Exports)
    Values.push_back(F ? F->value(E) : Binding::invalid(Failed));
  if (F)
    C.push_back(std::move(*F));
  return Values;
}

Binding KernelGen::typedArg(llvm::Type *T, const Operand &V) {
  std::optional<Fragment> Arg = quote(TypedArg, {{"t", T}, {"v", V}}, {});
  return Arg ? Binding(std::move(*Arg)) : Binding::invalid(Failed);
}

Operand KernelGen::emit(Code &C, const Template &T, const Bindings &Bound,
                        const char *Export) {
  std::vector<std::string> Exports;
  if (Export)
    Exports.push_back(Export);
  std::vector<Operand> V = emitAll(C, T, Bound, Exports);
  return V.empty() ? Operand(std::string()) : V[0];
}

llvm::Type *KernelGen::type(ScalarKind K) const {
  switch (K) {
  case ScalarKind::I8:
  case ScalarKind::U8:
    return llvm::Type::getInt8Ty(Ctx);
  case ScalarKind::I16:
  case ScalarKind::U16:
    return llvm::Type::getInt16Ty(Ctx);
  case ScalarKind::I32:
  case ScalarKind::U32:
    return llvm::Type::getInt32Ty(Ctx);
  case ScalarKind::I64:
  case ScalarKind::U64:
    return llvm::Type::getInt64Ty(Ctx);
  case ScalarKind::F16:
    return llvm::Type::getHalfTy(Ctx);
  case ScalarKind::F32:
    return llvm::Type::getFloatTy(Ctx);
  case ScalarKind::F64:
    return llvm::Type::getDoubleTy(Ctx);
  case ScalarKind::Bool:
    return llvm::Type::getInt1Ty(Ctx);
  }
  return llvm::Type::getInt8Ty(Ctx);
}

llvm::Type *KernelGen::memType(ScalarKind K) const {
  return K == ScalarKind::Bool ? llvm::Type::getInt8Ty(Ctx) : type(K);
}

llvm::Type *KernelGen::type(const ElemType &T) const {
  if (!T.isTuple())
    return type(T.field(0));
  std::vector<llvm::Type *> Fields;
  for (unsigned F = 0; F < T.numFields(); ++F)
    Fields.push_back(type(T.field(F)));
  return llvm::StructType::get(Ctx, Fields);
}

llvm::Type *KernelGen::typeOf(const std::string &Signature) {
  auto [It, New] = Signatures.try_emplace(Signature, nullptr);
  if (!New)
    return It->second;
  llvm::Module Scratch("signature", Ctx);
  llvm::SMDiagnostic Err;
  It->second = llvm::parseType(Signature, Err, Scratch);
  if (!It->second) {
    if (Failed.empty())
      Failed = "'" + Signature + "' is not a type: " + Err.getMessage().str();
    It->second = llvm::Type::getInt8Ty(Ctx);
  }
  return It->second;
}

std::string KernelGen::functionName(size_t I) {
  return "f" + std::to_string(I);
}

std::string KernelGen::fn(const Fn &F) {
  const FnImpl *P = &F.impl();
  for (size_t I = 0; I < Fns.size(); ++I)
    if (Fns[I]->Hash == P->Hash)
      return functionName(I);
  Fns.push_back(P);
  return functionName(Fns.size() - 1);
}

Operand KernelGen::slot(SlotSpec S) {
  auto [It, New] = SlotIx.emplace(S, unsigned(Slots.size()));
  if (New)
    Slots.push_back(S);
  return Operand("s" + std::to_string(It->second));
}

Operand KernelGen::buffer(const Node &N, unsigned Field) {
  return slot({SlotSpec::Buffer, indexOf(N), Field, 0, "ptr", true});
}
Operand KernelGen::extent(const Node &N, unsigned Dim) {
  return slot({SlotSpec::Extent, indexOf(N), Dim, 0, "i64", true});
}
Operand KernelGen::val(const Node &N, unsigned K) {
  return slot({SlotSpec::Val, indexOf(N), K, 0, "i64", true});
}
Operand KernelGen::out(unsigned Output, unsigned Field, bool NoAlias) {
  return slot({SlotSpec::Out, 0, Output, Field, "ptr", NoAlias});
}
Operand KernelGen::hostInt(unsigned K) {
  return slot({SlotSpec::Host, 0, K, 0, "i64", true});
}
Operand KernelGen::hostPtr(unsigned K, bool NoAlias) {
  return slot({SlotSpec::Host, 0, K, 0, "ptr", NoAlias});
}

Operand KernelGen::fault() {
  return slot({SlotSpec::Fault, 0, 0, 0, "ptr", false});
}

/// A tuple of type T from its fields' values.
static Operand pack(KernelGen &G, const ElemType &T,
                    const std::vector<Operand> &Fields, Code &Out) {
  if (!T.isTuple())
    return Fields[0];
  llvm::Type *Tuple = G.type(T);
  Operand Agg = llvm::PoisonValue::get(Tuple);
  for (unsigned F = 0; F < T.numFields(); ++F)
    Agg = G.emit(Out, InsertField,
                 {{"tuple", Tuple}, {"into", Agg}, {"t", G.type(T.field(F))},
                  {"v", Fields[F]}, {"f", F}},
                 "agg");
  return Agg;
}

Operand KernelGen::constant(const Node &N, unsigned C, Code &Out) {
  const ElemType &T = N.Consts[C].type();
  std::vector<Operand> Fields;
  for (unsigned F = 0; F < T.numFields(); ++F)
    Fields.push_back(slot({SlotSpec::ConstField, indexOf(N), C, F,
                           irType(T.field(F)), true}));
  return pack(*this, T, Fields, Out);
}

Operand KernelGen::call(const Fn &F, const std::vector<Typed> &Args,
                        Code &Out) {
  std::vector<Binding> Typed;
  for (const auto &A : Args)
    Typed.push_back(typedArg(A.Ty, A.V));
  return emit(Out, CallFn,
              {{"rt", typeOf(F.resultType())}, {"f", fn(F)}, {"args", Typed}},
              "r");
}

Operand KernelGen::call(const Node &Owner, unsigned FnIx,
                        std::vector<Typed> Args, Code &Out) {
  llvm::Type *Ptr = llvm::PointerType::get(Ctx, 0);
  llvm::Type *I64 = llvm::Type::getInt64Ty(Ctx);
  for (unsigned K : Owner.FnArrays[FnIx]) {
    const Node &A = *Owner.Kids[K];
    for (unsigned F = 0; F < A.Type.numFields(); ++F)
      Args.push_back({Ptr, buffer(A, F)});
    for (unsigned D = 0; D < A.Sh.rank(); ++D)
      Args.push_back({I64, extent(A, D)});
  }
  const Fn &F = Owner.Fns[FnIx];
  if (F.bound().empty())
    return call(F, Args, Out);
  // The bound parameters take their values from the argument block, at
  // their places among the others.
  std::vector<Typed> All;
  size_t Next = 0, B = 0;
  for (unsigned P = 0; P < F.paramTypes().size(); ++P) {
    if (B < F.bound().size() && F.bound()[B].first == P) {
      All.push_back({typeOf(F.paramTypes()[P]),
                     constant(Owner, Owner.FnBound[FnIx][B], Out)});
      ++B;
    } else if (Next < Args.size()) {
      All.push_back(std::move(Args[Next++]));
    }
  }
  return call(F, All, Out);
}

Operand KernelGen::load(const ElemType &T, const std::vector<Operand> &Bufs,
                        const Operand &L, Code &Out) {
  std::vector<Operand> Fields;
  for (unsigned F = 0; F < T.numFields(); ++F) {
    if (T.field(F) == ScalarKind::Bool)
      Fields.push_back(emit(Out, LoadBool, {{"buf", Bufs[F]}, {"ix", L}}, "v"));
    else
      Fields.push_back(emit(Out, LoadField,
                            {{"mem", memType(T.field(F))},
                             {"buf", Bufs[F]},
                             {"ix", L}},
                            "v"));
  }
  return pack(*this, T, Fields, Out);
}

Operand KernelGen::inRange(Code &Out, const Operand &Ix, const Operand &Extent,
                           const Operand &SoFar) {
  return emit(Out, InRange, {{"ix", Ix}, {"extent", Extent}, {"sofar", SoFar}},
              "ok");
}

Operand KernelGen::extractField(Code &Out, llvm::Type *Tuple,
                               const Operand &Agg, unsigned F) {
  return emit(Out, ExtractField, {{"tuple", Tuple}, {"agg", Agg}, {"f", F}},
              "v");
}

void KernelGen::store(const ElemType &T, const std::vector<Operand> &Bufs,
                      const Operand &V, const Operand &L, Code &Out,
                      bool NonTemporal) {
  for (unsigned F = 0; F < T.numFields(); ++F) {
    Operand X = V;
    if (T.isTuple())
      X = emit(Out, ExtractField, {{"tuple", type(T)}, {"agg", V}, {"f", F}},
               "v");
    if (T.field(F) == ScalarKind::Bool)
      emit(Out, StoreBool, {{"v", X}, {"buf", Bufs[F]}, {"ix", L}});
    else
      emit(Out, NonTemporal ? StoreFieldNonTemporal : StoreField,
           {{"mem", memType(T.field(F))}, {"v", X}, {"buf", Bufs[F]}, {"ix", L}});
  }
}

std::vector<Operand> KernelGen::outBuffers(unsigned Output, const ElemType &T,
                                           bool NoAlias) {
  std::vector<Operand> Bufs;
  for (unsigned F = 0; F < T.numFields(); ++F)
    Bufs.push_back(out(Output, F, NoAlias));
  return Bufs;
}

Operand KernelGen::linearOf(const Node &N, const std::vector<Operand> &Ix,
                            Code &Out) {
  if (Ix.empty())
    return Operand(0);
  Operand L = Ix[0];
  for (unsigned D = 1; D < Ix.size(); ++D)
    L = emit(Out, LinearStep, {{"l", L}, {"extent", extent(N, D)}, {"ix", Ix[D]}},
             "l");
  return L;
}

std::vector<Operand> KernelGen::multiOf(const Node &N, const Operand &L,
                                        Code &Out, int Dims) {
  unsigned Rank = Dims < 0 ? N.Sh.rank() : unsigned(Dims);
  std::vector<Operand> Ix(Rank, Operand(0));
  if (Rank == 0)
    return Ix;
  Operand Q = L;
  for (unsigned D = Rank - 1; D > 0; --D) {
    std::vector<Operand> IQ = emitAll(
        Out, MultiStep, {{"q", Q}, {"extent", extent(N, D)}}, {"i", "q"});
    Ix[D] = IQ[0];
    Q = IQ[1];
  }
  Ix[0] = Q;
  return Ix;
}

static bool linearFriendly(const Node &N) {
  switch (N.K) {
  case Op::Use:
  case Op::Fill:
  case Op::EnumFromN:
  case Op::Reshape:
    return true;
  case Op::Map:
  case Op::Field:
    return linearFriendly(*N.Kids[0]);
  case Op::Zip:
  case Op::ZipWith:
    if (N.Code[0] == 0)
      return false;
    for (unsigned K = 0; K < N.NumInputs; ++K)
      if (!linearFriendly(*N.Kids[K]))
        return false;
    return true;
  default:
    return false;
  }
}

static Operand enumValue(KernelGen &G, const Node &N, const Operand &L,
                         Code &Out) {
  Operand Start = G.constant(N, 0, Out);
  ScalarKind K = N.Type.field(0);
  llvm::Type *T = G.type(K);
  if (T->isFloatingPointTy())
    return G.emit(Out, EnumFloat, {{"l", L}, {"t", T}, {"start", Start}}, "e");
  if (T->isIntegerTy(64))
    return G.emit(Out, EnumI64, {{"l", L}, {"start", Start}}, "e");
  return G.emit(Out, EnumInt, {{"l", L}, {"t", T}, {"start", Start}}, "e");
}

Operand KernelGen::elemLinear(const Node &N, const Operand &L, Code &Out) {
  if (!linearFriendly(N))
    return elemMulti(N, multiOf(N, L, Out), Out);
  switch (N.K) {
  case Op::Use: {
    std::vector<Operand> Bufs;
    for (unsigned F = 0; F < N.Type.numFields(); ++F)
      Bufs.push_back(buffer(N, F));
    return load(N.Type, Bufs, L, Out);
  }
  case Op::Fill:
    return constant(N, 0, Out);
  case Op::EnumFromN:
    return enumValue(*this, N, L, Out);
  case Op::Reshape:
    return elemLinear(*N.Kids[0], L, Out);
  case Op::Map:
  case Op::ZipWith: {
    std::vector<Typed> Args;
    for (unsigned K = 0; K < N.NumInputs; ++K)
      Args.push_back({type(N.Kids[K]->Type), elemLinear(*N.Kids[K], L, Out)});
    return call(N, 0, Args, Out);
  }
  case Op::Zip: {
    std::vector<Operand> Fields;
    for (const NodeRef &K : N.Kids)
      Fields.push_back(elemLinear(*K, L, Out));
    return pack(*this, N.Type, Fields, Out);
  }
  case Op::Field:
    return extractField(Out, type(N.Kids[0]->Type),
                        elemLinear(*N.Kids[0], L, Out), unsigned(N.Code[0]));
  default:
    llvm_unreachable("not a linear-friendly producer");
  }
}

Operand KernelGen::elemMulti(const Node &N, const std::vector<Operand> &Ix,
                             Code &Out) {
  llvm::Type *I64 = llvm::Type::getInt64Ty(Ctx);
  switch (N.K) {
  case Op::Use:
  case Op::Fill:
  case Op::EnumFromN:
  case Op::Reshape:
    if (N.K == Op::Reshape)
      return elemLinear(*N.Kids[0], linearOf(N, Ix, Out), Out);
    return elemLinear(N, linearOf(N, Ix, Out), Out);
  case Op::Generate: {
    std::vector<Typed> Args;
    for (const Operand &I : Ix)
      Args.push_back({I64, I});
    return call(N, 0, Args, Out);
  }
  case Op::Map:
  case Op::ZipWith:
  case Op::IZipWith: {
    std::vector<Typed> Args;
    if (N.K == Op::IZipWith)
      for (const Operand &I : Ix)
        Args.push_back({I64, I});
    for (unsigned K = 0; K < N.NumInputs; ++K)
      Args.push_back({type(N.Kids[K]->Type), elemMulti(*N.Kids[K], Ix, Out)});
    return call(N, 0, Args, Out);
  }
  case Op::Transform:
  case Op::Backpermute: {
    std::vector<Typed> Args;
    for (const Operand &I : Ix)
      Args.push_back({I64, I});
    Operand P = call(N, 0, Args, Out);
    const Node &Src = *N.Kids[0];
    std::vector<Operand> SrcIx;
    if (Src.Sh.rank() == 1) {
      SrcIx.push_back(P);
    } else {
      llvm::Type *Result = typeOf(N.Fns[0].resultType());
      for (unsigned D = 0; D < Src.Sh.rank(); ++D)
        SrcIx.push_back(emit(Out, ExtractField,
                             {{"tuple", Result}, {"agg", P}, {"f", D}}, "v"));
    }
    // An index outside the source is the program's fault: it is reported,
    // and the element is not read.
    Operand Ok = true;
    for (unsigned D = 0; D < SrcIx.size(); ++D)
      Ok = emit(Out, InBounds,
                {{"ix", SrcIx[D]}, {"extent", extent(Src, D)}, {"sofar", Ok}},
                "ok");
    Code Read;
    Operand X = elemMulti(Src, SrcIx, Read);
    llvm::Type *T = type(Src.Type);
    Operand V = emit(Out, GuardedRead,
                     {{"t", T},
                      {"ok", Ok},
                      {"read", Read},
                      {"x", X},
                      {"node", indexOf(N)},
                      {"fault", fault()}},
                     "v");
    if (N.K == Op::Backpermute)
      return V;
    return call(N, 1, {{T, V}}, Out);
  }
  case Op::Reverse:
    return elemMulti(
        *N.Kids[0],
        {emit(Out, Reversed, {{"extent", extent(N, 0)}, {"ix", Ix[0]}}, "rv")},
        Out);
  case Op::Transpose:
    return elemMulti(*N.Kids[0], {Ix[1], Ix[0]}, Out);
  case Op::Slice: {
    std::vector<Operand> SrcIx{val(N, 0)};
    SrcIx.insert(SrcIx.end(), Ix.begin(), Ix.end());
    return elemMulti(*N.Kids[0], SrcIx, Out);
  }
  case Op::Replicate:
    return elemMulti(*N.Kids[0],
                     std::vector<Operand>(Ix.begin() + 1, Ix.end()), Out);
  case Op::Reindex: {
    // The source's index: the result's at All, the fixed ones at theirs;
    // a new dimension's index is not read.
    std::vector<Operand> SrcIx;
    size_t R = 0;
    for (int64_t C : N.Code) {
      if (C == 0)
        SrcIx.push_back(Ix[R++]);
      else if (C == 1)
        ++R;
      else
        SrcIx.push_back(val(N, unsigned(C - 2)));
    }
    return elemMulti(*N.Kids[0], SrcIx, Out);
  }
  case Op::Zip: {
    std::vector<Operand> Fields;
    for (const NodeRef &K : N.Kids)
      Fields.push_back(elemMulti(*K, Ix, Out));
    return pack(*this, N.Type, Fields, Out);
  }
  case Op::Field:
    return extractField(Out, type(N.Kids[0]->Type),
                        elemMulti(*N.Kids[0], Ix, Out), unsigned(N.Code[0]));
  case Op::Cut: {
    std::vector<Operand> SrcIx(Ix);
    SrcIx.back() = emit(Out, Shifted,
                        {{"ix", Ix.back()}, {"offset", val(N, 0)}}, "j");
    return elemMulti(*N.Kids[0], SrcIx, Out);
  }
  case Op::Concat: {
    const Node &A = *N.Kids[0], &B = *N.Kids[1];
    Operand Split = extent(A, A.Sh.rank() - 1);
    std::vector<Operand> BIx(Ix);
    BIx.back() = emit(Out, Unshifted, {{"ix", Ix.back()}, {"split", Split}}, "j");
    Code ReadA, ReadB;
    Operand XA = elemMulti(A, Ix, ReadA);
    Operand XB = elemMulti(B, BIx, ReadB);
    return emit(Out, Concatenated,
                {{"t", type(N.Type)},
                 {"ix", Ix.back()},
                 {"split", Split},
                 {"reada", ReadA},
                 {"a", XA},
                 {"readb", ReadB},
                 {"b", XB}},
                "v");
  }
  case Op::Consumer:
  case Op::Select:
    break;
  }
  llvm_unreachable("a consumer inside a fused tree");
}

llvm::Expected<std::unique_ptr<llvm::Module>>
KernelGen::instantiate(const Template &Skel, Bindings Extra,
                       const std::vector<std::string> &PhaseNames,
                       llvm::LLVMContext &ModuleCtx) {
  Phases = PhaseNames;
  // Each prelude once, before the functions; then each function after the
  // readers of its arrays.
  std::vector<Binding> Defs;
  std::vector<std::string> Preludes;
  bool Reads = false;
  for (const FnImpl *F : Fns) {
    Reads |= !F->Arrays.empty();
    if (!F->Uses || llvm::is_contained(Preludes, F->Uses->Suffix))
      continue;
    Preludes.push_back(F->Uses->Suffix);
    auto D = F->Uses->Def->fragment({});
    if (!D)
      return D.takeError();
    Defs.push_back(std::move(*D));
  }
  if (Reads && checks()) {
    auto D = readFaultDeclaration().fragment({});
    if (!D)
      return D.takeError();
    Defs.push_back(std::move(*D));
  }
  for (size_t I = 0; I < Fns.size(); ++I) {
    Bindings Names = fnBindings(*Fns[I], functionName(I), functionName(I) + ".");
    if (!Fns[I]->Arrays.empty()) {
      auto R = (checks() ? Fns[I]->CheckedReaders : Fns[I]->Readers)
                   ->fragment(Names);
      if (!R)
        return R.takeError();
      Defs.push_back(std::move(*R));
    }
    auto F = Fns[I]->Def->fragment(Names);
    if (!F)
      return F.takeError();
    Defs.push_back(std::move(*F));
  }
  std::vector<Binding> Params, Args;
  Code Unpack;
  for (size_t I = 0; I < Slots.size(); ++I) {
    const SlotSpec &S = Slots[I];
    std::string Name = "s" + std::to_string(I);
    llvm::Type *T = typeOf(S.Ty);
    Params.push_back(Binding::param(T, Name, S.Ty == "ptr" && S.NoAlias
                                                 ? std::vector<std::string>{"noalias"}
                                                 : std::vector<std::string>{}));
    Args.push_back(typedArg(T, Name));
    emit(Unpack, T->isIntegerTy(1) ? UnpackBool : UnpackSlot,
         {{"args", "args"}, {"k", I}, {"slot", Name}, {"t", T}});
  }
  if (!Failed.empty())
    return failure(Failed);
  std::vector<Binding> Entries;
  for (const std::string &P : PhaseNames) {
    auto E = EntryPoint.fragment({{"entry", Name + "." + P},
                                  {"body", "body." + P},
                                  {"unpack", Unpack},
                                  {"args", Args}});
    if (!E)
      return E.takeError();
    Entries.push_back(std::move(*E));
  }
  Extra.try_emplace("fns", Defs);
  Extra.try_emplace("params", Params);
  Extra.try_emplace("entries", Entries);
  auto M = Skel.instantiate(ModuleCtx, Extra);
  // A prelude's helpers are inlined like the functions that call them.
  if (M && !Preludes.empty())
    for (llvm::Function &F : **M)
      if (llvm::any_of(Preludes, [&](const std::string &S) {
            return F.getName().ends_with(S);
          })) {
        F.setLinkage(llvm::GlobalValue::InternalLinkage);
        if (!F.hasFnAttribute(llvm::Attribute::NoInline))
          F.addFnAttr(llvm::Attribute::AlwaysInline);
      }
  return M;
}

//===-- Backend -----------------------------------------------------------===//

llvm::Expected<std::string> Backend::targetCode(llvm::Module &,
                                                const KernelGen &) {
  return failure("this backend shows no target code as text");
}

//===-- Faults ------------------------------------------------------------===//

/// The message of fault code At of L's kernel, naming the scalar function
/// at fault (Kernel::DescribeFault of the kernels the Runtime compiles).
std::string llq::detail::describeFault(const Launch &L, int64_t At) {
  const Node &Root = L.root();
  const Kernel &K = L.kernel();
  const std::vector<const Node *> &Nodes = L.nodes();
  // Functions with one text are one function of the kernel: a fault in
  // function FnIx names the first operation, in the tree's preorder, that
  // uses it.
  auto UserOf = [&](size_t FnIx) -> std::pair<const Node *, const Fn *> {
    if (FnIx < K.FnHashes.size())
      for (const Node *N : Nodes)
        for (const Fn &F : N->Fns)
          if (F.impl().Hash == K.FnHashes[FnIx])
            return {N, &F};
    return {nullptr, nullptr};
  };
  if (At >= ReadFault) {
    size_t Which = size_t((At - ReadFault) % 64);
    auto [N, F] = UserOf(size_t((At - ReadFault) / 64));
    if (F && Which < F->impl().Arrays.size())
      return fmt::format(
          "{}: the function of {} ({}) read its array %{}{} at an index "
          "outside it; reported because checks are on "
          "(RuntimeOptions::Checks, LLQ_CHECKS)",
          Root.Name, N->Name, F->where(), F->impl().Arrays[Which].Name,
          Which < F->arrays().size() && F->arrays()[Which].node()
              ? " of shape " + F->arrays()[Which].shape().str()
              : std::string());
  } else if (At >= DivisionFault) {
    if (auto [N, F] = UserOf(size_t((At - DivisionFault) / 2)); F)
      return fmt::format(
          "{}: {} in the function of {} ({}); reported because checks are "
          "on (RuntimeOptions::Checks, LLQ_CHECKS)",
          Root.Name, divisionFaultKind(At), N->Name, F->where());
  } else if (At >= 0 && size_t(At) < Nodes.size() &&
             !Nodes[size_t(At)]->Fns.empty()) {
    const Node &N = *Nodes[size_t(At)];
    const Node &Src = *N.Kids[0];
    return fmt::format(
        "{}: the index function of {} ({}) returned an index outside the "
        "shape {} of its source; the result is not defined there",
        Root.Name, N.Name, N.Fns[0].where(), Src.Sh.str());
  }
  return L.plainFault(At);
}

//===-- Consumers ---------------------------------------------------------===//

static uint64_t nameHash(const char *S) {
  uint64_t H = 14695981039346656037ull;
  for (; *S; ++S) {
    H ^= uint8_t(*S);
    H *= 1099511628211ull;
  }
  return H;
}

std::shared_ptr<Node> llq::detail::makeConsumer(const Skeleton &Skel,
                                                const char *Name,
                                                std::vector<NodeRef> Kids) {
  auto N = makeNode(Op::Consumer, Name, std::move(Kids));
  N->Skel = &Skel;
  N->SkelId = nameHash(Skel.name());
  return N;
}

std::vector<Acc> llq::detail::outputsOf(const std::shared_ptr<Node> &N) {
  std::vector<Acc> Outs;
  for (size_t I = 0; I < N->OutTypes.size(); ++I) {
    auto S = makeNode(Op::Select, N->Name, {N});
    S->Code = {int64_t(I)};
    S->Type = N->OutTypes[I];
    S->Sh = N->OutShapes[I];
    Outs.push_back(Acc(S));
  }
  return Outs;
}

void KernelGen::assign(Code &C, const std::string &Var, llvm::Type *T,
                       const Operand &V) {
  emit(C, AssignVar, {{"var", Var}, {"t", T}, {"v", V}});
}

void KernelGen::code(Code &C, const Template &T, const Bindings &Bound,
                     std::vector<std::string> Outputs) {
  if (std::optional<Fragment> F = quote(T, Bound, std::move(Outputs)))
    C.push_back(std::move(*F));
}

namespace {
/// [first, last) folded as one chain into $id:into: foldRange's code for a
/// range too short for its chains.
const Template FoldOneChain = LLQ_INSTRS(R"(
  $id:j = i64 $opr:first
  $instrs:elem
  $id:into = $type:t $opr:x
  %next = add i64 $opr:first, 1
  for i64 %i in %next to $opr:last {
    $id:j = i64 %i
    $instrs:elem
    $id:into = call $type:t $gid:f($type:t $id:into, $type:t $opr:x)
  }
)");

/// foldRange's code in parts (foldChains), for four chains or eight. The
/// bounds: four quarters of [first, last), the last running to Last, each
/// of %q elements, %e at a time ($const:halves of them: 1, or 2 for eight
/// chains, whose halves start at %h0 .. %h3, HalfStarts); the chains are
/// %a0 .. %a3, or %o0 .. %o7.
const Template ChainBounds = LLQ_INSTRS(R"(
  %len = sub i64 $opr:last, $opr:first
  %e = sdiv i64 %len, $const:chains
  %q = mul i64 %e, $const:halves
  %q0 = i64 $opr:first
  %q1 = add i64 %q0, %q
  %q2 = add i64 %q1, %q
  %q3 = add i64 %q2, %q
  %multi = icmp sgt i64 %e, 0
)");
const Template HalfStarts = LLQ_INSTRS(R"(
  %h0 = add i64 %q0, %e
  %h1 = add i64 %q1, %e
  %h2 = add i64 %q2, %e
  %h3 = add i64 %q3, %e
)");
/// The chains started from their first elements under %multi; elsewhere
/// defined all the same, for code of their own that reads them under
/// %multi only.
const Template ChainsStart = LLQ_INSTRS(R"(
  $instrs:bounds
  if %multi {
    $instrs:firsts
  } else {
    $instrs:unset
  }
)");
/// Chain o, which starts at s: its first element, its element %i, or a
/// value where it has none.
const Template ChainFirst = LLQ_INSTRS(R"(
  $id:j = i64 $id:s
  $instrs:elem
  $id:o = $type:t $opr:x
)");
const Template ChainNext = LLQ_INSTRS(R"(
  $id:j = add i64 $id:s, %i
  $instrs:elem
  $id:o = call $type:t $gid:f($type:t $id:o, $type:t $opr:x)
)");
const Template ChainUnset = LLQ_INSTRS(R"(
  $id:o = $type:t zeroinitializer
)");
/// $id:dest = F(a, b), of template variables.
const Template CombineVars = LLQ_INSTRS(R"(
  $id:dest = call $type:t $gid:f($type:t $id:a, $type:t $id:b)
)");
/// The last chain's tail, the chains combined in order into the quarters'
/// %a0 .. %a3 ($instrs:pairs, for eight) and those into $id:into; or the
/// one chain.
const Template ChainsEnd = LLQ_INSTRS(R"(
  if %multi {
    %tail = add i64 %q3, %q
    for i64 %i in %tail to $opr:last {
      $id:j = i64 %i
      $instrs:elem
      $id:lastchain = call $type:t $gid:f($type:t $id:lastchain, $type:t $opr:x)
    }
    $instrs:pairs
    $id:into = call $type:t $gid:f($type:t %a0, $type:t %a1)
    $id:into = call $type:t $gid:f($type:t $id:into, $type:t %a2)
    $id:into = call $type:t $gid:f($type:t $id:into, $type:t %a3)
  } else {
    $instrs:onechain
    ; Defined on every path: a caller reads them under %multi only.
    %a0 = $type:t $id:into
    %a1 = $type:t $id:into
    %a2 = $type:t $id:into
    %a3 = $type:t $id:into
  }
)");
/// The three, the steps in a loop over each chain's elements after its
/// first.
const Template FoldChains = LLQ_INSTRS(R"(
  $instrs:start
  if %multi {
    for i64 %i in 1 to %e {
      $instrs:step
    }
  }
  $instrs:end
)");
} // namespace

/// foldRange's code as its parts, for Chains of 4 or 8.
static FoldParts foldChains(KernelGen &G, const Code &Elem, const Operand &X,
                            const std::string &J, llvm::Type *T,
                            const std::string &F, const Operand &First,
                            const Operand &Last, const std::string &Into,
                            unsigned Chains) {
  Bindings B{{"elem", Elem}, {"x", X},         {"j", J},       {"t", T},
             {"f", F},       {"first", First}, {"last", Last}, {"into", Into}};
  bool Eight = Chains == 8;
  // The chains in index order, and where each starts.
  std::vector<std::string> Names, Starts;
  for (unsigned C = 0; C < Chains; ++C) {
    Names.push_back((Eight ? "o" : "a") + std::to_string(C));
    Starts.push_back((Eight && C % 2 ? "h" : "q") +
                     std::to_string(Eight ? C / 2 : C));
  }
  std::vector<std::string> Bounds = {"len", "e",  "q",  "q0",
                                     "q1",  "q2", "q3", "multi"};
  Code BoundsCode, Firsts, Unset, OneChain, Pairs;
  G.code(BoundsCode, ChainBounds,
         {{"first", First}, {"last", Last}, {"chains", Chains},
          {"halves", Chains / 4}},
         Bounds);
  if (Eight) {
    G.code(BoundsCode, HalfStarts, {}, {"h0", "h1", "h2", "h3"});
    Bounds.insert(Bounds.end(), {"h0", "h1", "h2", "h3"});
  }
  FoldParts P;
  for (unsigned C = 0; C < Chains; ++C) {
    Bindings Chain{{"elem", Elem}, {"x", X},         {"j", J}, {"t", T},
                   {"f", F},       {"s", Starts[C]}, {"o", Names[C]}};
    G.code(Firsts, ChainFirst, Chain, {J, Names[C]});
    G.code(P.Step, ChainNext, Chain, {J, Names[C]});
    G.code(Unset, ChainUnset, {{"t", T}, {"o", Names[C]}}, {Names[C]});
  }
  std::vector<std::string> Vars = Bounds;
  Vars.insert(Vars.end(), Names.begin(), Names.end());
  Vars.push_back(J);
  G.code(P.Start, ChainsStart,
         {{"bounds", BoundsCode}, {"firsts", Firsts}, {"unset", Unset}}, Vars);
  if (Eight)
    for (unsigned A = 0; A < 4; ++A)
      G.code(Pairs, CombineVars,
             {{"t", T}, {"f", F}, {"dest", "a" + std::to_string(A)},
              {"a", Names[2 * A]}, {"b", Names[2 * A + 1]}},
             {"a" + std::to_string(A)});
  G.code(OneChain, FoldOneChain, B, {"next", "i", J, Into});
  B.try_emplace("onechain", OneChain);
  B.try_emplace("pairs", Pairs);
  B.try_emplace("lastchain", Names.back());
  std::vector<std::string> End = {"tail", "i", "a0", "a1", "a2", "a3", "next",
                                  J, Into};
  if (Eight)
    End.insert(End.end(), Names.begin(), Names.end());
  G.code(P.End, ChainsEnd, B, End);
  return P;
}

FoldParts llq::detail::foldEighthsParts(KernelGen &G, const Code &Elem,
                                        const Operand &X, const std::string &J,
                                        llvm::Type *T, const std::string &F,
                                        const Operand &First,
                                        const Operand &Last,
                                        const std::string &Into) {
  return foldChains(G, Elem, X, J, T, F, First, Last, Into, 8);
}

Code llq::detail::foldRange(KernelGen &G, const Code &Elem, const Operand &X,
                            const std::string &J, llvm::Type *T,
                            const std::string &F, const Operand &First,
                            const Operand &Last, const std::string &Into,
                            unsigned Chains) {
  FoldParts P = foldChains(G, Elem, X, J, T, F, First, Last, Into,
                           Chains == 8 ? 8 : 4);
  Code C;
  G.code(C, FoldChains, {{"start", P.Start}, {"step", P.Step}, {"end", P.End}},
         {"len", "q", "q0", "q1", "q2", "q3", "multi", "a0", "a1", "a2",
          "a3", "i", "tail", "next", J, Into});
  return C;
}
