//===- CodeGen.cpp - Fused element code, slots and kernel entry points ----===//
//
// KernelGen writes, in the dialect, the code that computes a producer's
// element at an index: the producers above a consumer are inlined into it
// here, which is all that fusion is. Every run-time value the code reads (a
// buffer, an extent, a constant) becomes an argument slot, so the kernel
// depends on the structure of the expression only.
//
// Launch fills the argument block from the same slots for one run, walking
// the tree in the same preorder as KernelGen numbered it.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
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

/// The nodes of the tree under Root in preorder, the numbering KernelGen
/// gives the slots and Launch fills them in. The tree is a true tree
/// (Runtime copies shared producers apart), so every node has one position.
std::vector<const Node *> preorder(const Node &Root) {
  std::vector<const Node *> Order, Work{&Root};
  while (!Work.empty()) {
    const Node *N = Work.back();
    Work.pop_back();
    Order.push_back(N);
    for (auto It = N->Kids.rbegin(); It != N->Kids.rend(); ++It)
      Work.push_back(It->get());
  }
  return Order;
}

std::string join(const std::vector<std::string> &L) {
  return fmt::format("{}", fmt::join(L, ", "));
}

} // namespace

llvm::Error llq::detail::failure(const std::string &Message) {
  return llvm::make_error<llvm::StringError>(Message,
                                             llvm::inconvertibleErrorCode());
}

int64_t llq::detail::chunksFor(int64_t N, unsigned Threads,
                               int64_t MinChunk) {
  if (N <= 0)
    return 0;
  int64_t ByGrain = (N + MinChunk - 1) / MinChunk;
  return std::max<int64_t>(1, std::min<int64_t>(ByGrain, int64_t(Threads) * 4));
}

//===-- KernelGen ---------------------------------------------------------===//

KernelGen::KernelGen(const Node &Root, std::string Name, const Backend &B,
                     bool Checks)
    : Root(Root), Name(std::move(Name)), B(B) {
  std::vector<const Node *> Order = preorder(Root);
  for (size_t I = 0; I < Order.size(); ++I)
    Index.emplace(Order[I], unsigned(I));
  if (Checks)
    FaultParam = fault().substr(1);
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

std::string KernelGen::fresh(const char *Base) {
  return fmt::format("%{}.{}", Base, Counter++);
}

std::string KernelGen::functionName(size_t I) { return fmt::format("f{}", I); }

std::string KernelGen::fn(const Fn &F) {
  const FnImpl *P = &F.impl();
  for (size_t I = 0; I < Fns.size(); ++I)
    if (Fns[I]->Hash == P->Hash)
      return "@" + functionName(I);
  Fns.push_back(P);
  return "@" + functionName(Fns.size() - 1);
}

std::string KernelGen::slot(SlotSpec S) {
  auto [It, New] = SlotIx.emplace(S, unsigned(Slots.size()));
  if (New)
    Slots.push_back(S);
  return fmt::format("%s{}", It->second);
}

std::string KernelGen::buffer(const Node &N, unsigned Field) {
  return slot({SlotSpec::Buffer, indexOf(N), Field, 0, "ptr", true});
}
std::string KernelGen::extent(const Node &N, unsigned Dim) {
  return slot({SlotSpec::Extent, indexOf(N), Dim, 0, "i64", true});
}
std::string KernelGen::val(const Node &N, unsigned K) {
  return slot({SlotSpec::Val, indexOf(N), K, 0, "i64", true});
}
std::string KernelGen::out(unsigned Output, unsigned Field, bool NoAlias) {
  return slot({SlotSpec::Out, 0, Output, Field, "ptr", NoAlias});
}
std::string KernelGen::hostInt(unsigned K) {
  return slot({SlotSpec::Host, 0, K, 0, "i64", true});
}
std::string KernelGen::hostPtr(unsigned K, bool NoAlias) {
  return slot({SlotSpec::Host, 0, K, 0, "ptr", NoAlias});
}

std::string KernelGen::fault() {
  return slot({SlotSpec::Fault, 0, 0, 0, "ptr", false});
}

std::string KernelGen::constant(const Node &N, unsigned C, std::string &Code) {
  const ElemType &T = N.Consts[C].type();
  std::vector<std::string> Fields;
  for (unsigned F = 0; F < T.numFields(); ++F)
    Fields.push_back(slot({SlotSpec::ConstField, indexOf(N), C, F,
                           irType(T.field(F)), true}));
  if (!T.isTuple())
    return Fields[0];
  std::string Agg = "poison";
  for (unsigned F = 0; F < T.numFields(); ++F) {
    std::string Next = fresh();
    Code += fmt::format("  {} = insertvalue {} {}, {} {}, {}\n", Next,
                        irType(T), Agg, irType(T.field(F)), Fields[F], F);
    Agg = Next;
  }
  return Agg;
}

std::string KernelGen::call(const Fn &F, const std::vector<std::string> &Args,
                            std::string &Code) {
  std::string R = fresh("r");
  Code += fmt::format("  {} = call {} {}({})\n", R, F.resultType(), fn(F),
                      join(Args));
  return R;
}

std::string KernelGen::call(const Node &Owner, unsigned FnIx,
                            std::vector<std::string> Args, std::string &Code) {
  for (unsigned K : Owner.FnArrays[FnIx]) {
    const Node &A = *Owner.Kids[K];
    for (unsigned F = 0; F < A.Type.numFields(); ++F)
      Args.push_back("ptr " + buffer(A, F));
    for (unsigned D = 0; D < A.Sh.rank(); ++D)
      Args.push_back("i64 " + extent(A, D));
  }
  return call(Owner.Fns[FnIx], Args, Code);
}

std::string KernelGen::load(const ElemType &T,
                            const std::vector<std::string> &Bufs,
                            const std::string &L, std::string &Code) {
  std::vector<std::string> Fields;
  for (unsigned F = 0; F < T.numFields(); ++F) {
    std::string Mem = memType(T.field(F));
    std::string P = fresh("p"), V = fresh("v");
    Code += fmt::format("  {} = getelementptr {}, ptr {}, i64 {}\n", P, Mem,
                        Bufs[F], L);
    Code += fmt::format("  {} = load {}, ptr {}\n", V, Mem, P);
    if (T.field(F) == ScalarKind::Bool) {
      std::string B = fresh("b");
      Code += fmt::format("  {} = trunc i8 {} to i1\n", B, V);
      V = B;
    }
    Fields.push_back(V);
  }
  if (!T.isTuple())
    return Fields[0];
  std::string Agg = "poison";
  for (unsigned F = 0; F < T.numFields(); ++F) {
    std::string Next = fresh();
    Code += fmt::format("  {} = insertvalue {} {}, {} {}, {}\n", Next,
                        irType(T), Agg, irType(T.field(F)), Fields[F], F);
    Agg = Next;
  }
  return Agg;
}

void KernelGen::store(const ElemType &T, const std::vector<std::string> &Bufs,
                      const std::string &V, const std::string &L,
                      std::string &Code) {
  for (unsigned F = 0; F < T.numFields(); ++F) {
    std::string X = V;
    if (T.isTuple()) {
      X = fresh("x");
      Code += fmt::format("  {} = extractvalue {} {}, {}\n", X, irType(T), V,
                          F);
    }
    if (T.field(F) == ScalarKind::Bool) {
      std::string Z = fresh("z");
      Code += fmt::format("  {} = zext i1 {} to i8\n", Z, X);
      X = Z;
    }
    std::string Mem = memType(T.field(F));
    std::string P = fresh("p");
    Code += fmt::format("  {} = getelementptr {}, ptr {}, i64 {}\n", P, Mem,
                        Bufs[F], L);
    Code += fmt::format("  store {} {}, ptr {}\n", Mem, X, P);
  }
}

std::vector<std::string> KernelGen::outBuffers(unsigned Output,
                                               const ElemType &T,
                                               bool NoAlias) {
  std::vector<std::string> Bufs;
  for (unsigned F = 0; F < T.numFields(); ++F)
    Bufs.push_back(out(Output, F, NoAlias));
  return Bufs;
}

std::string KernelGen::linearOf(const Node &N,
                                const std::vector<std::string> &Ix,
                                std::string &Code) {
  if (Ix.empty())
    return "0";
  std::string L = Ix[0];
  for (unsigned D = 1; D < Ix.size(); ++D) {
    std::string M = fresh("m"), A = fresh("l");
    Code += fmt::format("  {} = mul i64 {}, {}\n", M, L, extent(N, D));
    Code += fmt::format("  {} = add i64 {}, {}\n", A, M, Ix[D]);
    L = A;
  }
  return L;
}

std::vector<std::string> KernelGen::multiOf(const Node &N,
                                            const std::string &L,
                                            std::string &Code) {
  unsigned Rank = N.Sh.rank();
  std::vector<std::string> Ix(Rank);
  if (Rank == 0)
    return Ix;
  std::string Q = L;
  for (unsigned D = Rank - 1; D > 0; --D) {
    std::string R = fresh("i"), Next = fresh("q");
    Code += fmt::format("  {} = srem i64 {}, {}\n", R, Q, extent(N, D));
    Code += fmt::format("  {} = sdiv i64 {}, {}\n", Next, Q, extent(N, D));
    Ix[D] = R;
    Q = Next;
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
    return linearFriendly(*N.Kids[0]);
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

static std::string enumValue(KernelGen &G, const Node &N, const std::string &L,
                             std::string &Code) {
  std::string Start = G.constant(N, 0, Code);
  ScalarKind K = N.Type.field(0);
  std::string Ty = irType(K), V = G.fresh("e"), R = G.fresh("e");
  if (K == ScalarKind::F16 || K == ScalarKind::F32 || K == ScalarKind::F64) {
    Code += fmt::format("  {} = sitofp i64 {} to {}\n", V, L, Ty);
    Code += fmt::format("  {} = fadd {} {}, {}\n", R, Ty, Start, V);
  } else {
    if (Ty == "i64")
      Code += fmt::format("  {} = add i64 {}, 0\n", V, L);
    else
      Code += fmt::format("  {} = trunc i64 {} to {}\n", V, L, Ty);
    Code += fmt::format("  {} = add {} {}, {}\n", R, Ty, Start, V);
  }
  return R;
}

std::string KernelGen::elemLinear(const Node &N, const std::string &L,
                                  std::string &Code) {
  if (!linearFriendly(N))
    return elemMulti(N, multiOf(N, L, Code), Code);
  switch (N.K) {
  case Op::Use: {
    std::vector<std::string> Bufs;
    for (unsigned F = 0; F < N.Type.numFields(); ++F)
      Bufs.push_back(buffer(N, F));
    return load(N.Type, Bufs, L, Code);
  }
  case Op::Fill:
    return constant(N, 0, Code);
  case Op::EnumFromN:
    return enumValue(*this, N, L, Code);
  case Op::Reshape:
    return elemLinear(*N.Kids[0], L, Code);
  case Op::Map:
  case Op::ZipWith: {
    std::vector<std::string> Args;
    for (unsigned K = 0; K < N.NumInputs; ++K)
      Args.push_back(irType(N.Kids[K]->Type) + " " +
                     elemLinear(*N.Kids[K], L, Code));
    return call(N, 0, Args, Code);
  }
  default:
    llvm_unreachable("not a linear-friendly producer");
  }
}

std::string KernelGen::elemMulti(const Node &N,
                                 const std::vector<std::string> &Ix,
                                 std::string &Code) {
  switch (N.K) {
  case Op::Use:
  case Op::Fill:
  case Op::EnumFromN:
  case Op::Reshape:
    if (N.K == Op::Reshape)
      return elemLinear(*N.Kids[0], linearOf(N, Ix, Code), Code);
    return elemLinear(N, linearOf(N, Ix, Code), Code);
  case Op::Generate: {
    std::vector<std::string> Args;
    for (const std::string &I : Ix)
      Args.push_back("i64 " + I);
    return call(N, 0, Args, Code);
  }
  case Op::Map:
  case Op::ZipWith: {
    std::vector<std::string> Args;
    for (unsigned K = 0; K < N.NumInputs; ++K)
      Args.push_back(irType(N.Kids[K]->Type) + " " +
                     elemMulti(*N.Kids[K], Ix, Code));
    return call(N, 0, Args, Code);
  }
  case Op::Transform:
  case Op::Backpermute: {
    std::vector<std::string> Args;
    for (const std::string &I : Ix)
      Args.push_back("i64 " + I);
    std::string P = call(N, 0, Args, Code);
    const Node &Src = *N.Kids[0];
    std::vector<std::string> SrcIx;
    if (Src.Sh.rank() == 1) {
      SrcIx.push_back(P);
    } else {
      for (unsigned D = 0; D < Src.Sh.rank(); ++D) {
        std::string C = fresh("c");
        Code += fmt::format("  {} = extractvalue {} {}, {}\n", C,
                            N.Fns[0].resultType(), P, D);
        SrcIx.push_back(C);
      }
    }
    // An index outside the source is the program's fault: it is reported,
    // and the element is not read.
    std::string Ok;
    for (unsigned D = 0; D < SrcIx.size(); ++D) {
      std::string In = fresh("in");
      Code += fmt::format("  {} = icmp ult i64 {}, {}\n", In, SrcIx[D],
                          extent(Src, D));
      if (!Ok.empty()) {
        std::string Both = fresh("in");
        Code += fmt::format("  {} = and i1 {}, {}\n", Both, Ok, In);
        In = Both;
      }
      Ok = In;
    }
    std::string V = fresh("v"), Ty = irType(Src.Type);
    Code += fmt::format("  {} = {} zeroinitializer\n  if {} {{\n", V, Ty, Ok);
    std::string X = elemMulti(Src, SrcIx, Code);
    Code += fmt::format("  {} = {} {}\n  }} else {{\n"
                        "  store atomic i64 {}, ptr {} monotonic, align 8\n"
                        "  }}\n",
                        V, Ty, X, indexOf(N), fault());
    if (N.K == Op::Backpermute)
      return V;
    return call(N, 1, {Ty + " " + V}, Code);
  }
  case Op::Reverse: {
    std::string A = fresh("n"), B = fresh("rv");
    Code += fmt::format("  {} = sub i64 {}, 1\n", A, extent(N, 0));
    Code += fmt::format("  {} = sub i64 {}, {}\n", B, A, Ix[0]);
    return elemMulti(*N.Kids[0], {B}, Code);
  }
  case Op::Transpose:
    return elemMulti(*N.Kids[0], {Ix[1], Ix[0]}, Code);
  case Op::Slice: {
    std::vector<std::string> SrcIx{val(N, 0)};
    SrcIx.insert(SrcIx.end(), Ix.begin(), Ix.end());
    return elemMulti(*N.Kids[0], SrcIx, Code);
  }
  case Op::Replicate:
    return elemMulti(*N.Kids[0],
                     std::vector<std::string>(Ix.begin() + 1, Ix.end()), Code);
  case Op::Consumer:
  case Op::Select:
    break;
  }
  llvm_unreachable("a consumer inside a fused tree");
}

llvm::Expected<std::unique_ptr<llvm::Module>>
KernelGen::instantiate(const Template &Skel, Bindings Extra,
                       const std::vector<std::string> &PhaseNames,
                       llvm::LLVMContext &Ctx) {
  Phases = PhaseNames;
  std::vector<std::string> Defs;
  for (size_t I = 0; I < Fns.size(); ++I) {
    auto F = Fns[I]->Def->fragment({{"name", functionName(I)}});
    if (!F)
      return F.takeError();
    Defs.push_back(F->Text);
  }
  std::vector<std::string> Params, Args;
  std::string Unpack;
  for (size_t I = 0; I < Slots.size(); ++I) {
    const SlotSpec &S = Slots[I];
    Params.push_back(fmt::format("{}{} %s{}", S.Ty,
                                 S.Ty == "ptr" && S.NoAlias ? " noalias" : "",
                                 I));
    Args.push_back(fmt::format("{} %s{}", S.Ty, I));
    Unpack += fmt::format("  %s{0}.p = getelementptr i64, ptr %args, i64 {0}\n",
                          I);
    if (S.Ty == "i1")
      Unpack += fmt::format("  %s{0}.b = load i8, ptr %s{0}.p\n"
                            "  %s{0} = trunc i8 %s{0}.b to i1\n",
                            I);
    else
      Unpack += fmt::format("  %s{0} = load {1}, ptr %s{0}.p\n", I, S.Ty);
  }
  std::string Entries;
  for (const std::string &P : PhaseNames) {
    auto E = EntryPoint.fragment({{"entry", Name + "." + P},
                                  {"body", "body." + P},
                                  {"unpack", Unpack},
                                  {"args", Args}});
    if (!E)
      return E.takeError();
    Entries += E->Text + "\n";
  }
  Extra.try_emplace("fns", Defs);
  Extra.try_emplace("params", Params);
  Extra.try_emplace("entries", Entries);
  return Skel.instantiate(Ctx, Extra);
}

//===-- Backend -----------------------------------------------------------===//

rt::Expected<std::shared_ptr<rt::Array>>
Backend::allocate(const ElemType &T, const Shape &Sh) {
  rt::Expected<rt::Array> A =
      rt::Array::create(T, Sh, rt::Array::Fill::Uninitialized);
  if (!A)
    return A.status();
  return std::make_shared<rt::Array>(std::move(*A));
}

llvm::Expected<std::string> Backend::targetCode(llvm::Module &,
                                                const KernelGen &) {
  return failure("this backend shows no target code as text");
}

rt::Expected<std::shared_ptr<void>> Backend::scratch(size_t Bytes) {
  size_t Rounded = scratchBytes(Bytes);
  void *P = std::aligned_alloc(64, Rounded);
  if (!P)
    return rt::Status::error("out of memory");
  std::memset(P, 0, Rounded);
  return std::shared_ptr<void>(P, [](void *Q) { std::free(Q); });
}

//===-- Launch ------------------------------------------------------------===//

Launch::Launch(const Node &Root, const Kernel &K, Backend &B)
    : Root(Root), K(K), B(B), Nodes(preorder(Root)) {}

int64_t Launch::grain(int64_t HostGrain) const {
  return B.grain(K.Loops ? std::min<int64_t>(HostGrain, 16) : HostGrain);
}

llvm::Error Launch::output(const ElemType &T, const Shape &Sh) {
  if (Outputs.empty() && Reuse && Reuse->type() == T && Reuse->shape() == Sh) {
    auto R = B.resident(Reuse);
    // Only storage the kernels write in place can be reused.
    if (R && *R == Reuse) {
      Outputs.push_back(Reuse);
      return llvm::Error::success();
    }
  }
  rt::Expected<std::shared_ptr<rt::Array>> A = B.allocate(T, Sh);
  if (!A)
    return failure(fmt::format("{}: {}", Root.Name, A.message()));
  Outputs.push_back(std::move(*A));
  return llvm::Error::success();
}

void *Launch::scratch(size_t Bytes) {
  rt::Expected<std::shared_ptr<void>> P = B.scratch(Bytes);
  if (!P)
    throw ArrayError(fmt::format("{}: cannot allocate {} bytes of scratch "
                                 "memory: {}",
                                 Root.Name, Bytes, P.message()));
  Scratch.push_back(*P);
  return P->get();
}

llvm::Error Launch::run(unsigned Phase, int64_t Begin, int64_t End,
                        int64_t Grain) {
  Args.assign(K.Slots.size(), 0);
  for (size_t I = 0; I < K.Slots.size(); ++I) {
    const SlotSpec &S = K.Slots[I];
    const Node &N = *Nodes[S.NodeIx];
    uint64_t &V = Args[I];
    switch (S.K) {
    case SlotSpec::Buffer: {
      auto &Held = Resident[N.Data.get()];
      if (!Held) {
        rt::Expected<std::shared_ptr<rt::Array>> R = B.resident(N.Data);
        if (!R)
          return failure(fmt::format("{}: {}", Root.Name, R.message()));
        Held = *R;
      }
      V = reinterpret_cast<uintptr_t>(Held->data(S.A));
      break;
    }
    case SlotSpec::Extent:
      V = uint64_t(N.Sh.extent(S.A));
      break;
    case SlotSpec::ConstField:
      V = N.Consts[S.A].bits(S.B);
      break;
    case SlotSpec::Val:
      V = uint64_t(N.Vals[S.A]);
      break;
    case SlotSpec::Out:
      V = reinterpret_cast<uintptr_t>(Outputs.at(S.A)->data(S.B));
      break;
    case SlotSpec::Host:
      V = Host.at(S.A);
      break;
    case SlotSpec::Fault:
      if (!FaultWord) {
        try {
          FaultWord = static_cast<int64_t *>(scratch(sizeof(int64_t)));
        } catch (const ArrayError &E) {
          return failure(E.what());
        }
        *FaultWord = -1;
      }
      V = reinterpret_cast<uintptr_t>(FaultWord);
      break;
    }
  }
  if (Phase >= K.numPhases())
    return failure(fmt::format("{}: the kernel has no phase {}", Root.Name,
                               Phase));
  rt::Status St = B.launch(K, Phase, Begin, End, Args.data(), Grain);
  if (!St.ok())
    return failure(fmt::format("{}: {}", Root.Name, St.message()));
  int64_t At =
      FaultWord ? __atomic_load_n(FaultWord, __ATOMIC_RELAXED) : int64_t(-1);
  if (At >= DivisionFault) {
    size_t FnIx = size_t((At - DivisionFault) / 2);
    bool Overflow = (At - DivisionFault) % 2;
    const char *What = Overflow ? "signed integer division overflow (the "
                                  "least value divided by -1)"
                                : "integer division by zero";
    // Functions with one text are one function of the kernel: name the
    // first operation, in the tree's preorder, that uses it.
    if (FnIx < K.FnHashes.size())
      for (const Node *N : Nodes)
        for (const Fn &F : N->Fns)
          if (F.impl().Hash == K.FnHashes[FnIx])
            return failure(fmt::format(
                "{}: {} in the function of {} ({}); reported because "
                "checks are on (RuntimeOptions::Checks, LLQ_CHECKS)",
                Root.Name, What, N->Name, F.where()));
    return failure(fmt::format("{}: {} in one of its functions", Root.Name,
                               What));
  }
  if (At >= 0 && size_t(At) < Nodes.size()) {
    const Node &N = *Nodes[size_t(At)];
    const Node &Src = *N.Kids[0];
    return failure(fmt::format(
        "{}: the index function of {} ({}) returned an index outside the "
        "shape {} of its source; the result is not defined there",
        Root.Name, N.Name, N.Fns[0].where(), Src.Sh.str()));
  }
  return llvm::Error::success();
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

std::string llq::detail::foldRange(const std::string &Elem,
                                   const std::string &T, const std::string &F,
                                   const std::string &First,
                                   const std::string &Last,
                                   const std::string &Into) {
  auto Call = [&](const std::string &Dest, const std::string &A,
                  const std::string &B) {
    return fmt::format("  {0} = call {1} {2}({1} {3}, {1} {4})\n", Dest, T, F,
                       A, B);
  };
  std::string Code = fmt::format("  %len = sub i64 {}, {}\n"
                                 "  %q = sdiv i64 %len, 4\n"
                                 "  %q0 = i64 {}\n"
                                 "  %q1 = add i64 %q0, %q\n"
                                 "  %q2 = add i64 %q1, %q\n"
                                 "  %q3 = add i64 %q2, %q\n"
                                 "  %multi = icmp sgt i64 %q, 0\n"
                                 "  if %multi {{\n",
                                 Last, First, First);
  const char *Starts[] = {"%q0", "%q1", "%q2", "%q3"};
  const char *Accs[] = {"%a0", "%a1", "%a2", "%a3"};
  for (int K = 0; K < 4; ++K)
    Code += fmt::format("  %j = i64 {}\n", Starts[K]) + Elem +
            fmt::format("  {} = {} %x\n", Accs[K], T);
  Code += "  for i64 %i in 1 to %q {\n";
  for (int K = 0; K < 4; ++K)
    Code += fmt::format("  %j = add i64 {}, %i\n", Starts[K]) + Elem +
            Call(Accs[K], Accs[K], "%x");
  Code += fmt::format("  }}\n  %tail = add i64 %q3, %q\n"
                      "  for i64 %j in %tail to {} {{\n",
                      Last) +
          Elem + Call("%a3", "%a3", "%x") + "  }\n" +
          Call(Into, "%a0", "%a1") + Call(Into, Into, "%a2") +
          Call(Into, Into, "%a3") + "  } else {\n" +
          fmt::format("  %j = i64 {}\n", First) + Elem +
          fmt::format("  {} = {} %x\n  %next = add i64 {}, 1\n"
                      "  for i64 %j in %next to {} {{\n",
                      Into, T, First, Last) +
          Elem + Call(Into, Into, "%x") + "  }\n";
  // Defined on every path: a caller may read them under %multi only.
  for (const char *A : Accs)
    Code += fmt::format("  {} = {} {}\n", A, T, Into);
  return Code + "  }\n";
}
