//===- Main.cpp - llquote_bench_arrays: skeletons against their peers ------===//
//
//   llquote_bench_arrays [--smoke | --quick | --full] [--out DIR]
//                        [--threads N] [--ops map,dot,...] [--reps N]
//
// For every operation and size: builds the inputs, lets every peer make its
// implementation, runs each once and checks its result against the
// sequential loop's (a peer that fails is reported and not timed), runs
// each once more to warm up, then times them in interleaved repetitions:
// in each repetition every peer, in a shuffled order, runs enough calls to
// last about a target time, after a pause that lets the previous peer's
// spinning threads go to sleep. Also measures STREAM with all cores, the
// warm call overhead (a one-element map) and llquote's kernel compile
// latency. Writes DIR/samples.csv (one line per repetition),
// DIR/checks.csv and DIR/machine.json; bench/arrays/report.py turns them
// into the ratio table and the plots. --smoke only checks, at tiny sizes.
//
//===----------------------------------------------------------------------===//

#include "Problem.h"
#include "llvm/Config/llvm-config.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

using namespace llq::arraybench;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string Mode = "quick";
  std::string Out = "bench-results";
  unsigned Threads = 0;
  unsigned Reps = 0;
  std::vector<std::string> Ops;
  /// Only these sizes (log2 of n) of the mode's, where given.
  std::vector<int> Sizes;
  /// Only these peers, and seq (the reference), where given.
  std::vector<std::string> Peers;
};

const std::vector<std::string> AllOps = {
    "map",   "saxpy",  "sum",    "dot",   "scan",         "histogram",
    "reverse", "transpose", "segsum", "blur3", "blur5", "canny",
    "blackscholes", "mandelbrot", "nbody", "overhead"};

std::vector<std::string> split(const std::string &S) {
  std::vector<std::string> Out;
  std::stringstream SS(S);
  std::string Item;
  while (std::getline(SS, Item, ','))
    if (!Item.empty())
      Out.push_back(Item);
  return Out;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: llquote_bench_arrays [--smoke|--quick|--full] [--out DIR]\n"
               "       [--threads N] [--reps N] [--ops op,op,...]\n"
               "       [--sizes k,k,...  (only n = 2^k of the mode's sizes)]\n"
               "       [--peers p,p,...  (only these and seq, the reference)]\n"
               "operations:");
  for (auto &O : AllOps)
    std::fprintf(stderr, " %s", O.c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

Options parse(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= Argc)
        usage();
      return Argv[++I];
    };
    if (A == "--smoke" || A == "--quick" || A == "--full")
      O.Mode = A.substr(2);
    else if (A == "--out")
      O.Out = Next();
    else if (A == "--threads")
      O.Threads = unsigned(std::stoul(Next()));
    else if (A == "--reps")
      O.Reps = unsigned(std::stoul(Next()));
    else if (A == "--ops")
      O.Ops = split(Next());
    else if (A == "--sizes")
      for (const std::string &K : split(Next()))
        O.Sizes.push_back(std::stoi(K));
    else if (A == "--peers")
      O.Peers = split(Next());
    else
      usage();
  }
  if (O.Ops.empty())
    O.Ops = AllOps;
  for (auto &Op : O.Ops)
    if (std::find(AllOps.begin(), AllOps.end(), Op) == AllOps.end())
      usage();
  if (!O.Threads)
    O.Threads = std::max(1u, std::thread::hardware_concurrency());
  if (!O.Reps)
    O.Reps = O.Mode == "full" ? 11 : O.Mode == "quick" ? 5 : 1;
  return O;
}

/// The sizes (elements, log2) each operation runs at in each mode.
std::vector<int64_t> sizesOf(const std::string &Op, const std::string &Mode) {
  std::vector<int> L;
  if (Op == "overhead")
    return {1};
  // n-body: bodies, not a power of two (the sizes of the all-pairs step
  // that Accelerate reports).
  if (Op == "nbody")
    return Mode == "smoke" ? std::vector<int64_t>{1, 7, 100}
                           : std::vector<int64_t>{500, 1000, 2000, 4000};
  if (Mode == "smoke") {
    if (Op == "blur3" || Op == "blur5" || Op == "canny" || Op == "transpose" ||
        Op == "mandelbrot")
      L = {10, 12};
    else
      return {1, 7, 1009, 4096 + 3};
  } else if (Op == "blur3" || Op == "blur5" || Op == "canny") {
    L = Mode == "full" ? std::vector<int>{20, 24} : std::vector<int>{24};
  } else if (Mode == "full") {
    // map also at every power of two from 2^6 to 2^16, where the calling
    // thread and the peers' launches cross over.
    if (Op == "map")
      for (int K = 6; K < 10; ++K)
        L.push_back(K);
    for (int K = 10; K <= 26; K += 2) {
      L.push_back(K);
      if (Op == "map" && K < 16)
        L.push_back(K + 1);
    }
    if (Op == "mandelbrot")
      L.erase(std::remove_if(L.begin(), L.end(), [](int K) { return K > 24; }),
              L.end());
  } else {
    L = {10, 14, 18, 22, 24};
    if (Op == "mandelbrot")
      L = {10, 14, 18, 22};
  }
  std::vector<int64_t> N;
  for (int K : L)
    N.push_back(int64_t(1) << K);
  return N;
}

/// Bytes an operation must move per run, for GB/s (reads + writes, as
/// STREAM counts them).
double bytesOf(const Problem &P) {
  double N = double(P.N);
  const std::string &Op = P.Op;
  if (Op == "sum" || Op == "histogram")
    return 4 * N;
  if (Op == "map" || Op == "overhead" || Op == "dot" || Op == "scan" ||
      Op == "reverse" || Op == "transpose" || Op == "blur3" || Op == "blur5")
    return 8 * N;
  if (Op == "canny") // the image in, the blurred image out and in, the result
    return 16 * N;
  if (Op == "nbody") // compute-bound: 16 bytes of body read per interaction
    return 16 * N * N;
  if (Op == "saxpy")
    return 12 * N;
  if (Op == "segsum")
    return 4 * N + 8 * double(P.Segs.size());
  if (Op == "blackscholes")
    return 16 * N;
  if (Op == "mandelbrot")
    return 4 * N;
  return 0;
}

Problem makeProblem(const std::string &Op, int64_t N, unsigned Threads) {
  Problem P;
  P.Op = Op;
  P.N = N;
  P.Threads = Threads;
  // Values in {-1, 0, 1} and {-2, ..., 2} with periods 3 and 5: every sum,
  // prefix and dot product is a small integer in any association, so the
  // floats of every peer must agree exactly.
  auto Ternary = [](int64_t I) { return float(I % 3 - 1); };
  auto Quinary = [](int64_t I) { return float(I % 5 - 2); };
  if (Op == "transpose" || Op == "mandelbrot" || Op == "blur3" || Op == "blur5" ||
      Op == "canny") {
    int K = 0;
    while ((int64_t(1) << (K + 1)) <= N)
      ++K;
    P.Rows = int64_t(1) << (K / 2);
    P.Cols = N / P.Rows;
    P.N = N = P.Rows * P.Cols;
  }
  if (Op == "mandelbrot")
    return P;
  P.X.resize(size_t(N));
  for (int64_t I = 0; I < N; ++I)
    P.X[size_t(I)] = Ternary(I);
  if (Op == "saxpy" || Op == "dot") {
    P.Y.resize(size_t(N));
    for (int64_t I = 0; I < N; ++I)
      P.Y[size_t(I)] = Quinary(I);
  } else if (Op == "transpose" || Op == "blur3" || Op == "blur5" ||
             Op == "canny") {
    for (int64_t I = 0; I < N; ++I)
      P.X[size_t(I)] = float(I % 1021) * 0.125f;
  } else if (Op == "histogram") {
    P.W.resize(size_t(N));
    for (int64_t I = 0; I < N; ++I)
      P.W[size_t(I)] = int32_t(I % 3);
  } else if (Op == "segsum") {
    // Lengths 1 to 127 (mean 64) from a hash; the last one is cut to fit.
    int64_t Left = N;
    for (int64_t J = 0; Left > 0; ++J) {
      int64_t L = 1 + int64_t((uint64_t(J) * 0x9E3779B97F4A7C15ull) >> 57) % 127;
      L = std::min(L, Left);
      P.Segs.push_back(int32_t(L));
      Left -= L;
    }
  } else if (Op == "nbody") {
    P.Y.resize(size_t(N));
    P.Z.resize(size_t(N));
    P.M.resize(size_t(N));
    for (int64_t I = 0; I < N; ++I) {
      P.X[size_t(I)] = std::cos(float(I) * 0.7f) * float(I % 17);
      P.Y[size_t(I)] = std::sin(float(I) * 1.3f) * float(I % 13);
      P.Z[size_t(I)] = float(I % 11) - 5.0f;
      P.M[size_t(I)] = 1.0f + float(I % 3);
    }
  } else if (Op == "blackscholes") {
    P.Y.resize(size_t(N));
    P.Z.resize(size_t(N));
    for (int64_t I = 0; I < N; ++I) {
      P.X[size_t(I)] = 10.0f + float(I % 91);
      P.Y[size_t(I)] = 10.0f + float((I * 7) % 97);
      P.Z[size_t(I)] = 0.25f + 0.25f * float(I % 8);
    }
  }
  return P;
}

/// Empty if Got matches Want, else what is wrong.
std::string check(const std::string &Op, const View &Got, const View &Want) {
  char Buf[256];
  if (Got.N != Want.N) {
    std::snprintf(Buf, sizeof Buf, "%lld elements, the reference %lld",
                  (long long)Got.N, (long long)Want.N);
    return Buf;
  }
  if ((Got.F == nullptr) != (Want.F == nullptr) ||
      (Got.I == nullptr) != (Want.I == nullptr))
    return "element type differs from the reference";
  if (Op == "mandelbrot") {
    // Pixels on the set's border may take another iteration count when a
    // compiler contracts or reorders float operations: allow 0.5%.
    int64_t Bad = 0;
    for (int64_t I = 0; I < Got.N; ++I)
      Bad += Got.I[I] != Want.I[I];
    if (double(Bad) > 0.005 * double(Got.N)) {
      std::snprintf(Buf, sizeof Buf, "%lld of %lld pixels differ", (long long)Bad,
                    (long long)Got.N);
      return Buf;
    }
    return "";
  }
  // Black-Scholes, blur, Canny and n-body round differently per peer
  // (vector exp/log, summation order, contraction into fused multiply-adds);
  // everything else is exact by construction.
  double Rel = Op == "blackscholes" || Op == "canny" ? 1e-4
               : Op == "nbody"                      ? 1e-3
               : Op == "blur3" || Op == "blur5"     ? 1e-5
                                                    : 0;
  for (int64_t I = 0; I < Got.N; ++I) {
    if (Got.I) {
      if (Got.I[I] != Want.I[I]) {
        std::snprintf(Buf, sizeof Buf, "element %lld is %d, the reference %d",
                      (long long)I, Got.I[I], Want.I[I]);
        return Buf;
      }
      continue;
    }
    double G = Got.F[I], W = Want.F[I];
    if (!(std::fabs(G - W) <= Rel * std::max(1.0, std::fabs(W)))) {
      std::snprintf(Buf, sizeof Buf, "element %lld is %.9g, the reference %.9g",
                    (long long)I, G, W);
      return Buf;
    }
  }
  return "";
}

double seconds(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

std::string cpuModel() {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("model name", 0) == 0) {
      auto P = Line.find(':');
      return P == std::string::npos ? Line : Line.substr(P + 2);
    }
  return "unknown";
}

std::string json(const std::string &S) {
  std::string O = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      O += '\\';
    O += C;
  }
  return O + "\"";
}

} // namespace

int main(int Argc, char **Argv) {
  Options O = parse(Argc, Argv);
  // Every parallel runtime gets the same number of threads. Idle OpenMP
  // threads spin for a while before sleeping; the pause between peers
  // (below) outlasts that, so no peer runs beside another's spinning threads.
  std::string T = std::to_string(O.Threads);
  setenv("OMP_NUM_THREADS", T.c_str(), 0);
  setenv("HL_NUM_THREADS", T.c_str(), 0);
  setenv("LLQ_NUM_THREADS", T.c_str(), 0);
  bool Smoke = O.Mode == "smoke";
  double Target = O.Mode == "full" ? 0.02 : 0.005;
  auto Gap = std::chrono::milliseconds(Smoke ? 0 : 10);

  std::vector<Peer> Peers;
  addSeqPeers(Peers);
  addOmpPeers(Peers);
  addTBBPeers(Peers);
  addHalidePeers(Peers);
  addLlquotePeers(Peers, O.Threads);
  setNativeThreads(O.Threads);
  setTBBThreads(O.Threads);
  if (!O.Peers.empty()) {
    for (const std::string &Name : O.Peers)
      if (std::none_of(Peers.begin(), Peers.end(),
                       [&](const Peer &P) { return P.Name == Name; })) {
        std::fprintf(stderr, "unknown peer '%s'; peers:", Name.c_str());
        for (const Peer &P : Peers)
          std::fprintf(stderr, " %s", P.Name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
      }
    Peers.erase(std::remove_if(Peers.begin(), Peers.end(),
                               [&](const Peer &P) {
                                 return P.Name != "seq" &&
                                        std::find(O.Peers.begin(), O.Peers.end(),
                                                  P.Name) == O.Peers.end();
                               }),
                Peers.end());
  }

  std::string Mk = "mkdir -p '" + O.Out + "'";
  if (std::system(Mk.c_str()) != 0) {
    std::fprintf(stderr, "cannot create %s\n", O.Out.c_str());
    return 2;
  }
  std::ofstream Samples(O.Out + "/samples.csv"), Checks(O.Out + "/checks.csv");
  Samples << "kind,op,n,peer,rep,iters,seconds,bytes\n";
  Checks << "op,n,peer,status\n";

  TargetInfo Machine = describeTarget();
  // Written again once STREAM has run, with its figures.
  auto WriteMachine = [&](const std::map<std::string, double> &Stream) {
    std::time_t Now = std::time(nullptr);
    char Date[64];
    std::strftime(Date, sizeof Date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&Now));
    std::ofstream M(O.Out + "/machine.json");
    M << "{\n  \"cpu\": " << json(cpuModel())
      << ",\n  \"llvm_cpu\": " << json(Machine.CPU)
      << ",\n  \"vector_features\": " << json(Machine.VectorFeatures)
      << ",\n  \"vector_bits\": " << Machine.VectorBits
      << ",\n  \"l1d\": " << json(Machine.L1d) << ",\n  \"l2\": " << json(Machine.L2)
      << ",\n  \"l3\": " << json(Machine.L3) << ",\n  \"cores\": "
      << std::thread::hardware_concurrency() << ",\n  \"threads\": " << O.Threads
      << ",\n  \"llvm\": " << json(LLVM_VERSION_STRING)
      << ",\n  \"compiler\": " << json(__VERSION__) << ",\n  \"date\": " << json(Date)
      << ",\n  \"mode\": " << json(O.Mode) << ",\n  \"reps\": " << O.Reps;
    for (const auto &[Name, GBs] : Stream)
      M << ",\n  \"stream_" << Name << "_gbs\": " << GBs;
    M << ",\n  \"peers\": [";
    for (size_t I = 0; I < Peers.size(); ++I)
      M << (I ? ", " : "") << json(Peers[I].Name);
    M << "]\n}\n";
  };
  WriteMachine({});
  std::printf("llquote_bench_arrays: %s, %u threads, %u repetitions; peers:",
              O.Mode.c_str(), O.Threads, O.Reps);
  for (auto &P : Peers)
    std::printf(" %s", P.Name.c_str());
  std::printf("\n");
  std::printf("machine: %s; LLVM CPU %s, %u-bit vectors (%s); L1d %s, L2 %s, L3 %s\n",
              cpuModel().c_str(), Machine.CPU.c_str(), Machine.VectorBits,
              Machine.VectorFeatures.c_str(), Machine.L1d.c_str(),
              Machine.L2.c_str(), Machine.L3.c_str());

  // The limit: STREAM over 2^24 floats per array (2^16 in smoke mode).
  {
    int64_t N = Smoke ? (1 << 16) : (1 << 24);
    StreamTimes S = runStream(N, std::max(O.Reps, 3u));
    std::map<std::string, double> Medians;
    auto Put = [&](const char *Name, const std::vector<double> &V, int Arrays) {
      for (size_t R = 0; R < V.size(); ++R)
        Samples << "stream," << Name << ',' << N << ",omp," << R << ",1," << V[R]
                << ',' << double(Arrays) * 4 * double(N) << '\n';
      std::vector<double> W = V;
      std::sort(W.begin(), W.end());
      double GBs = double(Arrays) * 4 * double(N) / W[W.size() / 2] / 1e9;
      Medians[Name] = std::round(GBs * 10) / 10;
      std::printf("stream %-6s %8.1f GB/s\n", Name, GBs);
    };
    Put("copy", S.Copy, 2);
    Put("scale", S.Scale, 2);
    Put("add", S.Add, 3);
    Put("triad", S.Triad, 3);
    WriteMachine(Medians);
  }

  std::mt19937 Rng(42);
  int Failures = 0;
  for (const std::string &Op : O.Ops) {
    for (int64_t N : sizesOf(Op, O.Mode)) {
      if (!O.Sizes.empty() &&
          std::none_of(O.Sizes.begin(), O.Sizes.end(),
                       [&](int K) { return K < 62 && N == int64_t(1) << K; }))
        continue;
      Problem P = makeProblem(Op, N, O.Threads);
      double Bytes = bytesOf(P);
      struct Entry {
        std::string Name;
        Impl Im;
      };
      std::vector<Entry> Ready;
      std::optional<View> Ref;
      for (Peer &Pe : Peers) {
        std::optional<Impl> Im;
        std::string Status = "ok";
        try {
          Im = Pe.Make(P);
          if (!Im)
            continue;
          Im->Run();
          View V = Im->Result();
          if (Pe.Name == "seq")
            Ref = V;
          else if (!Ref)
            Status = "no reference";
          else if (std::string E = check(Op, V, *Ref); !E.empty())
            Status = "wrong: " + E;
        } catch (std::exception &E) {
          Status = std::string("error: ") + E.what();
        }
        Checks << Op << ',' << P.N << ',' << Pe.Name << ",\"" << Status << "\"\n";
        if (Status != "ok") {
          std::printf("%-12s n=%-9lld %-10s %s\n", Op.c_str(), (long long)P.N,
                      Pe.Name.c_str(), Status.c_str());
          ++Failures;
          continue;
        }
        Ready.push_back({Pe.Name, std::move(*Im)});
      }
      if (Smoke) {
        std::printf("%-12s n=%-9lld checked:", Op.c_str(), (long long)P.N);
        for (auto &E : Ready)
          std::printf(" %s", E.Name.c_str());
        std::printf("\n");
        continue;
      }
      // Warm-up and calibration: calls per sample so that one lasts Target.
      std::vector<int64_t> Iters;
      for (auto &E : Ready) {
        E.Im.Run();
        auto T0 = Clock::now();
        E.Im.Run();
        double One = seconds(T0, Clock::now());
        Iters.push_back(std::clamp<int64_t>(int64_t(Target / std::max(One, 1e-9)),
                                            1, 1000000));
      }
      std::map<std::string, std::vector<double>> Times;
      std::vector<size_t> Order(Ready.size());
      for (size_t I = 0; I < Order.size(); ++I)
        Order[I] = I;
      for (unsigned R = 0; R < O.Reps; ++R) {
        std::shuffle(Order.begin(), Order.end(), Rng);
        for (size_t I : Order) {
          std::this_thread::sleep_for(Gap);
          Entry &E = Ready[I];
          auto T0 = Clock::now();
          for (int64_t K = 0; K < Iters[I]; ++K)
            E.Im.Run();
          double S = seconds(T0, Clock::now()) / double(Iters[I]);
          Times[E.Name].push_back(S);
          Samples << "op," << Op << ',' << P.N << ',' << E.Name << ',' << R << ','
                  << Iters[I] << ',' << S << ',' << Bytes << '\n';
        }
      }
      std::printf("%-12s n=%-9lld", Op.c_str(), (long long)P.N);
      for (auto &E : Ready) {
        std::vector<double> V = Times[E.Name];
        std::sort(V.begin(), V.end());
        double Med = V[V.size() / 2];
        if (Op == "overhead")
          std::printf("  %s %.2fus", E.Name.c_str(), Med * 1e6);
        else
          std::printf("  %s %.2fGB/s", E.Name.c_str(), Bytes / Med / 1e9);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }

  if (!Smoke) {
    for (const CompileTimes &C : measureCompile(O.Reps >= 5 ? 5 : 3, O.Threads)) {
      auto Put = [&](const char *Which, const std::vector<double> &V) {
        for (size_t R = 0; R < V.size(); ++R)
          Samples << "compile," << C.Op << ",1024," << Which << ',' << R << ",1,"
                  << V[R] << ",0\n";
      };
      Put("cold", C.Cold);
      Put("disk", C.Disk);
      Put("warm", C.Warm);
      auto Med = [](std::vector<double> V) {
        std::sort(V.begin(), V.end());
        return V[V.size() / 2];
      };
      std::printf("compile %-5s cold %.1f ms, disk hit %.2f ms, warm %.1f us\n",
                  C.Op.c_str(), Med(C.Cold) * 1e3, Med(C.Disk) * 1e3,
                  Med(C.Warm) * 1e6);
    }
  }
  std::printf("wrote %s/samples.csv, checks.csv, machine.json; %d failed check(s)\n",
              O.Out.c_str(), Failures);
  return Failures ? 1 : 0;
}
