//===- NoHalide.cpp - No Halide peer where Halide 14 was not found ---------===//
#include "../Problem.h"
void llq::arraybench::addHalidePeers(std::vector<Peer> &) {}
