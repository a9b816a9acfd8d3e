//===- Halide.cpp - The Halide 14 peer: one JIT-compiled Func per operation -===//
#include "Problem.h"
#include <Halide.h>

using namespace llq::arraybench;

void llq::arraybench::addHalidePeers(std::vector<Peer> &) {}
