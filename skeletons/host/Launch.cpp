//===- Launch.cpp - The launch protocol, without LLVM ---------------------===//
//
// Launch fills a kernel's argument block from its slots for one run,
// walking the tree in the preorder KernelGen numbered it in, and runs its
// phases through the Executor; the helpers the launchers share. Compiled
// into llquote_host, which programs that run kernels compiled ahead of
// time link without LLVM.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Launch.h"
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

/// The tree is a true tree (Runtime copies shared producers apart), so
/// every node has one position.
std::vector<const Node *> llq::detail::preorder(const Node &Root) {
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

bool llq::detail::holdsAtLeast(const Node &N, int64_t Bytes) {
  int64_t Elem = std::max<int64_t>(int64_t(N.Type.bytes()), 1);
  return N.Sh.size() >= (Bytes + Elem - 1) / Elem;
}

int64_t llq::detail::chunksFor(int64_t N, unsigned Threads,
                               int64_t MinChunk) {
  if (N <= 0)
    return 0;
  int64_t ByGrain = (N + MinChunk - 1) / MinChunk;
  return std::max<int64_t>(1, std::min<int64_t>(ByGrain, int64_t(Threads) * 4));
}

//===-- Executor ----------------------------------------------------------===//

rt::Expected<std::shared_ptr<rt::Array>>
Executor::allocate(const ElemType &T, const Shape &Sh) {
  rt::Expected<rt::Array> A =
      rt::Array::create(T, Sh, rt::Array::Fill::Uninitialized);
  if (!A)
    return A.status();
  return std::make_shared<rt::Array>(std::move(*A));
}

rt::Expected<std::shared_ptr<void>> Executor::scratch(size_t Bytes) {
  size_t Rounded = scratchBytes(Bytes);
  void *P = std::aligned_alloc(64, Rounded);
  if (!P)
    return rt::Status::error("out of memory");
  std::memset(P, 0, Rounded);
  return std::shared_ptr<void>(P, [](void *Q) { std::free(Q); });
}

//===-- Launch ------------------------------------------------------------===//

/// The message of fault code At where the kernel's compiler gave no
/// describer: a node's fault in full, a checked-mode one by its kind.
std::string Launch::plainFault(int64_t At) const {
  if (At >= ReadFault)
    return fmt::format("{}: one of its functions read an array at an index "
                       "outside it",
                       Root.Name);
  if (At >= DivisionFault)
    return fmt::format("{}: {} in one of its functions", Root.Name,
                       divisionFaultKind(At));
  if (size_t(At) < Nodes.size() && !Nodes[size_t(At)]->Kids.empty()) {
    const Node &N = *Nodes[size_t(At)];
    return fmt::format("{}: the index function of {} returned an index "
                       "outside the shape {} of its source; the result is "
                       "not defined there",
                       Root.Name, N.Name, N.Kids[0]->Sh.str());
  }
  return fmt::format("{}: its kernel reported fault {}", Root.Name, At);
}


Launch::Launch(const Node &Root, const Kernel &K, Executor &B,
               const std::vector<const Node *> *Order)
    : Root(Root), K(K), B(B), OwnOrder(Order ? std::vector<const Node *>()
                                             : preorder(Root)),
      Nodes(Order ? *Order : OwnOrder), HostArrays(B.readsHostArrays()) {}

int64_t Launch::grain(int64_t HostGrain) const {
  if (K.Loops)
    return B.grain(std::min<int64_t>(HostGrain, 16));
  int64_t Scaled = HostGrain * 24 / std::max<int64_t>(K.Weight, 3);
  Scaled = std::clamp<int64_t>(Scaled, std::max<int64_t>(HostGrain / 16, 64),
                               HostGrain * 4);
  // A power of two: the power-of-two ranges that arrays mostly have then
  // split into pieces of one length, as many for each thread.
  return B.grain(int64_t(1) << (63 - __builtin_clzll(uint64_t(Scaled))));
}

rt::Status Launch::output(const ElemType &T, const Shape &Sh) {
  if (Outputs.empty() && Reuse && Reuse->type() == T && Reuse->shape() == Sh) {
    // Only storage the kernels write in place can be reused.
    bool InPlace = B.readsHostArrays();
    if (!InPlace) {
      auto R = B.resident(Reuse);
      InPlace = R && *R == Reuse;
    }
    if (InPlace) {
      Outputs.push_back(std::move(Reuse));
      return rt::Status();
    }
  }
  rt::Expected<std::shared_ptr<rt::Array>> A = B.allocate(T, Sh);
  if (!A)
    return failed(fmt::format("{}: {}", Root.Name, A.message()));
  Outputs.push_back(std::move(*A));
  return rt::Status();
}

void *Launch::scratch(size_t Bytes, bool Zero) {
  rt::Expected<std::shared_ptr<void>> P = B.scratch(Bytes);
  if (!P)
    throw ArrayError(fmt::format("{}: cannot allocate {} bytes of scratch "
                                 "memory: {}",
                                 Root.Name, Bytes, P.message()));
  Scratch.emplace_back(*P, Bytes);
  ScratchBytes += Bytes;
  if (!Zero)
    Scratch.back().second = 0;
  return P->get();
}

rt::Status Launch::run(unsigned Phase, int64_t Begin, int64_t End,
                        int64_t Grain) {
  size_t NumSlots = K.Slots.size();
  uint64_t *Args = InlineArgs;
  if (NumSlots > std::size(InlineArgs)) {
    HeapArgs.assign(NumSlots, 0);
    Args = HeapArgs.data();
  }
  std::fill(Args, Args + NumSlots, uint64_t(0));
  for (size_t I = 0; I < K.Slots.size(); ++I) {
    const SlotSpec &S = K.Slots[I];
    const Node &N = *Nodes[S.NodeIx];
    uint64_t &V = Args[I];
    switch (S.K) {
    case SlotSpec::Buffer: {
      const rt::Array *Held = HostArrays ? N.Data.get() : nullptr;
      for (auto &[Read, Dev] : Resident)
        if (Read == N.Data.get())
          Held = Dev.get();
      if (!Held) {
        rt::Expected<std::shared_ptr<rt::Array>> R = B.resident(N.Data);
        if (!R)
          return failed(fmt::format("{}: {}", Root.Name, R.message()));
        Resident.emplace_back(N.Data.get(), *R);
        Held = Resident.back().second.get();
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
      if (S.A >= Outputs.size() && OutputsPending) {
        V = 0;
        break;
      }
      if (S.A >= Outputs.size())
        return failed(fmt::format("{}: the kernel writes output {}, which "
                                   "its skeleton did not allocate",
                                   Root.Name, S.A));
      V = reinterpret_cast<uintptr_t>(Outputs[S.A]->data(S.B));
      break;
    case SlotSpec::Host:
      if (S.A >= Host.size())
        return failed(fmt::format("{}: the kernel reads host value {}, "
                                   "which its skeleton did not set",
                                   Root.Name, S.A));
      V = Host[S.A];
      break;
    case SlotSpec::Fault:
      if (!FaultWord) {
        try {
          FaultWord = static_cast<int64_t *>(scratch(sizeof(int64_t)));
        } catch (const ArrayError &E) {
          return failed(E.what());
        }
        *FaultWord = -1;
      }
      V = reinterpret_cast<uintptr_t>(FaultWord);
      break;
    }
  }
  if (Phase >= K.numPhases())
    return failed(fmt::format("{}: the kernel has no phase {}", Root.Name,
                               Phase));
  if (Recording && !Unrecordable)
    recordCall(Phase, Begin, End, Grain, Args);
  rt::Status St = B.launch(K, Phase, Begin, End, Args, Grain);
  if (!St.ok())
    return failed(fmt::format("{}: {}", Root.Name, St.message()));
  int64_t At =
      FaultWord ? __atomic_load_n(FaultWord, __ATOMIC_RELAXED) : int64_t(-1);
  if (At < 0)
    return rt::Status();
  return failed(K.DescribeFault ? K.DescribeFault(*this, At)
                                : plainFault(At));
}

//===-- Records of launches -----------------------------------------------===//

void Launch::recordCall(unsigned Phase, int64_t Begin, int64_t End,
                        int64_t Grain, const uint64_t *Args) {
  if (!HostArrays || !Resident.empty()) {
    Unrecordable = true;
    return;
  }
  if (!Rec)
    Rec = std::make_unique<LaunchRecord>();
  auto Call = uint32_t(Rec->Calls.size());
  Rec->Calls.push_back({Phase, Begin, End, Grain,
                        std::vector<uint64_t>(Args, Args + K.Slots.size()),
                        B.callsInline(Begin, End, Grain) &&
                                Phase < K.Phases.size()
                            ? K.Phases[Phase]
                            : nullptr});
  for (size_t I = 0; I < K.Slots.size(); ++I) {
    const SlotSpec &S = K.Slots[I];
    if (S.K == SlotSpec::Buffer)
      Rec->Pointers.push_back({Call, uint32_t(I), S.NodeIx, S.A, -1});
    else if (S.K == SlotSpec::Out && Args[I])
      Rec->Pointers.push_back({Call, uint32_t(I), 0, S.B, int32_t(S.A)});
    else if (S.K == SlotSpec::Out)
      Unrecordable = true; // written before it was allocated
  }
}

std::unique_ptr<LaunchRecord> Launch::record(size_t MaxScratchBytes) {
  if (!Recording || Unrecordable || !Rec || OutputsPending ||
      ScratchBytes > MaxScratchBytes)
    return nullptr;
  for (const std::shared_ptr<rt::Array> &A : Outputs)
    Rec->Outputs.emplace_back(A->type(), A->shape());
  Rec->Scratch = std::move(Scratch);
  Rec->FaultWord = FaultWord;
  return std::move(Rec);
}

rt::Status LaunchRecord::repeat(const Kernel &K, Executor &B,
                                const std::vector<const Node *> *Nodes,
                                const std::shared_ptr<rt::Array> *Outs,
                                bool &Faulted) {
  Faulted = false;
  for (auto &[Mem, Bytes] : Scratch)
    if (Bytes)
      std::memset(Mem.get(), 0, Bytes);
  if (FaultWord)
    *FaultWord = -1;
  for (const SegmentRead &S : Segments) {
    const rt::Array &A = Nodes ? *(*Nodes)[S.NodeIx]->Data : *S.Fixed;
    // Lengths that no longer fit: the launcher says how (the operation's
    // name is not kept here).
    if (!readSegments("", A, S.Inner, S.AllowEmpty, S.Offs, S.Lens).ok()) {
      Faulted = true;
      return rt::Status();
    }
  }
  for (const Pointer &P : Pointers) {
    const rt::Array &A =
        P.Output >= 0 ? *Outs[P.Output] : *(*Nodes)[P.NodeIx]->Data;
    Calls[P.Call].Args[P.Slot] = reinterpret_cast<uintptr_t>(A.data(P.Field));
  }
  for (Call &C : Calls) {
    if (C.Direct && !K.CallsScheduler) {
      C.Direct(C.Begin, C.End, C.Args.data());
    } else if (rt::Status St =
            C.Direct ? rt::runOnThisThread(C.Direct, C.Begin, C.End,
                                           C.Args.data())
                     : B.launch(K, C.Phase, C.Begin, C.End, C.Args.data(),
                                C.Grain);
        !St.ok())
      return St;
    if (FaultWord && __atomic_load_n(FaultWord, __ATOMIC_RELAXED) >= 0) {
      Faulted = true;
      return rt::Status();
    }
  }
  return rt::Status();
}

//===-- Segments ----------------------------------------------------------===//

rt::Status llq::detail::readSegments(const char *Name, const rt::Array &S,
                                      int64_t Inner, bool AllowEmpty,
                                      int64_t *Offs, int64_t *Lens) {
  int64_t NSeg = S.size();
  int64_t Sum = 0;
  for (int64_t I = 0; I < NSeg; ++I) {
    int64_t Len = S.type().field(0) == ScalarKind::I64
                      ? static_cast<const int64_t *>(S.data(0))[I]
                      : static_cast<const int32_t *>(S.data(0))[I];
    if (Len < 0)
      return failed(fmt::format("{}: segment {} has length {}", Name, I,
                                 Len));
    if (Len == 0 && !AllowEmpty)
      return failed(fmt::format("{}: segment {} is empty, and {} has no "
                                 "seed",
                                 Name, I, Name));
    Offs[I] = Sum;
    Lens[I] = Len;
    if (__builtin_add_overflow(Sum, Len, &Sum))
      return failed(fmt::format("{}: the segment lengths overflow", Name));
  }
  if (Sum != Inner)
    return failed(fmt::format("{}: the segments add up to {}, but the "
                               "innermost dimension has {} elements",
                               Name, Sum, Inner));
  return rt::Status();
}

rt::Status llq::detail::segmentsOf(Launch &L, const Node &S, int64_t Inner,
                                    bool AllowEmpty, int64_t *&Offs,
                                    int64_t *&Lens) {
  int64_t NSeg = S.Sh.size();
  // readSegments writes every offset and length before a kernel reads it.
  Offs = static_cast<int64_t *>(L.scratch(size_t(NSeg) * 8, /*Zero=*/false));
  Lens = static_cast<int64_t *>(L.scratch(size_t(NSeg) * 8, /*Zero=*/false));
  if (rt::Status St = readSegments(L.root().Name, *S.Data, Inner, AllowEmpty,
                                   Offs, Lens);
      !St.ok())
    return St;
  L.recordSegments(S, Inner, AllowEmpty, Offs, Lens);
  return rt::Status();
}

void Launch::recordSegments(const Node &Segs, int64_t Inner, bool AllowEmpty,
                            int64_t *Offs, int64_t *Lens) {
  if (!Recording)
    return;
  auto At = std::find(Nodes.begin(), Nodes.end(), &Segs);
  if (At == Nodes.end() || !Segs.Data) {
    Unrecordable = true;
    return;
  }
  if (!Rec)
    Rec = std::make_unique<LaunchRecord>();
  Rec->Segments.push_back({uint32_t(At - Nodes.begin()), Segs.Data.get(),
                           Inner, AllowEmpty, Offs, Lens});
}


//===-- The CPU executor --------------------------------------------------===//

/// Pieces per thread of a launch whose scalar functions loop (Kernel::Loops).
static constexpr unsigned LoopingPiecesPerThread = 16;

rt::Status llq::detail::launchOnGang(rt::Gang &G, const Kernel &K,
                                     unsigned Phase, int64_t Begin,
                                     int64_t End, void *Args, int64_t Grain) {
  unsigned Pieces = K.Loops ? LoopingPiecesPerThread : 0;
  return G.parallelFor(Begin, End, K.Phases[Phase], Args, Grain, Pieces);
}

rt::Expected<std::shared_ptr<rt::Array>>
llq::detail::allocateFrom(rt::BufferPool *Pool, const ElemType &T,
                          const Shape &Sh) {
  rt::Expected<rt::Array> A =
      rt::Array::create(T, Sh, rt::Array::Fill::Uninitialized, Pool);
  if (!A)
    return A.status();
  return std::make_shared<rt::Array>(std::move(*A));
}

namespace {
class CpuExecutor final : public Executor {
public:
  CpuExecutor(unsigned Threads, std::shared_ptr<rt::BufferPool> Pool,
              bool NonTemporal)
      : Pool(std::move(Pool)), NonTemporal(NonTemporal), G(Threads) {}
  unsigned parallelism() const override { return G.numThreads(); }
  bool atomics() const override { return true; }
  bool readsHostArrays() const override { return true; }
  bool nonTemporalStores() const override { return NonTemporal; }
  rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                    int64_t End, void *Args, int64_t Grain) override {
    return launchOnGang(G, K, Phase, Begin, End, Args, Grain);
  }
  bool callsInline(int64_t Begin, int64_t End, int64_t Grain) const override {
    return G.runsInline(Begin, End, Grain);
  }
  rt::Expected<std::shared_ptr<rt::Array>>
  allocate(const ElemType &T, const Shape &Sh) override {
    return allocateFrom(Pool.get(), T, Sh);
  }

private:
  std::shared_ptr<rt::BufferPool> Pool;
  bool NonTemporal;
  rt::Gang G;
};
} // namespace

std::unique_ptr<Executor>
llq::detail::makeCpuExecutor(unsigned Threads,
                             std::shared_ptr<rt::BufferPool> Pool,
                             bool NonTemporalStores) {
  return std::make_unique<CpuExecutor>(Threads, std::move(Pool),
                                       NonTemporalStores);
}
