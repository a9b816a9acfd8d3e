//===- Options.h - Command-line sizes for the examples ----------*- C++ -*-===//
//
// Each example takes --n, --width, --height, --steps and --threads (the ones
// it uses), runs on every core unless --threads says otherwise, and checks
// its result against a plain sequential C++ reference: exit status 1 on a
// mismatch, 2 on a bad option. Those that can also run over MPI ranks take
// --mpi (a switch; run them under mpirun): Mpi.h.
//
//===----------------------------------------------------------------------===//
#ifndef LLQUOTE_EXAMPLES_OPTIONS_H
#define LLQUOTE_EXAMPLES_OPTIONS_H

#include "llquote/Skeletons.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

struct Options {
  std::map<std::string, long long> Values;
  long long get(const char *Name, long long Default) const {
    auto It = Values.find(Name);
    return It == Values.end() ? Default : It->second;
  }
  llq::Runtime make() const {
    llq::RuntimeOptions O;
    O.Threads = unsigned(get("threads", 0));
    return llq::Runtime(O);
  }
};

/// Reads --name=value or --name value; exits 2 on anything else.
inline Options parseOptions(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A.rfind("--", 0) != 0) {
      std::fprintf(stderr, "%s: unexpected argument '%s'\n", Argv[0], Argv[I]);
      std::exit(2);
    }
    std::string Name = A.substr(2), Value;
    size_t Eq = Name.find('=');
    if (Name == "mpi") {
      O.Values[Name] = 1; // A switch.
      continue;
    }
    if (Eq != std::string::npos) {
      Value = Name.substr(Eq + 1);
      Name = Name.substr(0, Eq);
    } else if (I + 1 < Argc) {
      Value = Argv[++I];
    }
    char *End = nullptr;
    long long V = std::strtoll(Value.c_str(), &End, 10);
    if (Value.empty() || *End || V < 0) {
      std::fprintf(stderr, "%s: --%s needs a count, not '%s'\n", Argv[0],
                   Name.c_str(), Value.c_str());
      std::exit(2);
    }
    O.Values[Name] = V;
  }
  return O;
}

/// Runs Body with the parsed options; an ArrayError (a mistake in the
/// program or a failed kernel) is printed, and the exit status is 1.
inline int runExample(int (*Body)(const Options &), int Argc, char **Argv) {
  Options O = parseOptions(Argc, Argv);
  try {
    return Body(O);
  } catch (const llq::ArrayError &E) {
    std::fprintf(stderr, "%s: %s\n", Argv[0], E.what());
    return 1;
  }
}

#endif
