//===- Launchers.h - The library's launchers: what they share ---*- C++ -*-===//
//
// Internal to the skeleton library: the host halves of its skeletons
// (Launchers.cpp, in llquote_host, without LLVM), and the decisions that
// their generating halves (skeletons/lib) must make alike: which walks are
// tiled, the host slots of a kernel, size bounds of kernel variants.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_HOST_LAUNCHERS_H
#define LLQUOTE_SKELETONS_HOST_LAUNCHERS_H

#include "llquote/skeletons/Launch.h"

namespace llq::detail {

//===-- The materialising skeleton (map) ----------------------------------===//

/// Outputs of at least this many bytes are written with non-temporal
/// stores (not tiled walks): at 2^24 floats (64 MiB) a map took 3.36-3.44
/// ms so against 3.82-4.04 with plain stores, OpenMP's 3.37-3.71; at 2^22
/// (16 MiB, which the caches partly hold between calls) twice as long.
constexpr int64_t NonTemporalMapBytes = int64_t(32) << 20;

/// The side of a tile, in elements: 32 x 32 floats are 4 KiB of output and
/// 32 source rows of 128 bytes, well inside a level-1 cache.
constexpr int64_t Tile = 32;
/// The side of a tile of a matrix of LargeTileBytes or more: 64 x 64 floats
/// read 256 bytes of each of 64 source rows, whole lines that the hardware
/// prefetches, and touch half as many pages per byte moved; a smaller
/// matrix is in cache anyway, and more tiles share it better among threads.
constexpr int64_t LargeTile = 64;
constexpr int64_t LargeTileBytes = int64_t(4) << 20;
static_assert(Tile % 8 == 0 && LargeTile % 8 == 0,
              "a full tile is a whole number of 8 x 8 blocks");

/// The tile side for a walk of P.
int64_t tileFor(const Node &P);

/// Whether N's fused tree, the part of it computed inside the kernel,
/// transposes an array. The arrays a function reads (Fn::with) are
/// computed before the kernel: they are not looked into.
bool transposes(const Node &N);

/// Whether P, a materialised array, is walked in tiles: where the backend's
/// threads gain by it (Executor::tiledWalks). A GPU thread runs one element
/// of the map, so that a warp's writes are neighbours; a tile per thread
/// would serialise 1024 of them.
bool tiled(const Node &P, const Executor &B);

//===-- Scans -------------------------------------------------------------===//

/// The bytes of a stream chunk, at 8 per field of an element.
constexpr int64_t StreamChunkBytes = 128 << 10;
/// The most input bytes of a stream chunk.
constexpr int64_t StreamChunkMaxBytes = 512 << 10;
/// The fewest elements of a stream chunk where a vector shorter than a
/// chunk a thread is cut so that each thread scans one.
constexpr int64_t StreamChunkMinElems = 4096;
/// Scan outputs of at least this many bytes are written non-temporally.
constexpr int64_t ScanNonTemporalBytes = 16 << 20;

//===-- permute -----------------------------------------------------------===//

namespace permute {
/// Host slots of the kernel: the tuple path's lock bytes; the private
/// copies, their reached-bytes, the cells from one part's copy to the
/// next, a part's length and the number of parts.
enum HostSlot : unsigned { Locks, Private, Reached, PartStride, PartLen, Parts };

/// Each part's copy starts a multiple of this many bytes from the first:
/// two cores that scatter into copies on one 4 KiB page slow each other
/// down, one of them about twofold (a 256-bin histogram on a 2-core EPYC;
/// docs/Skeletons.md).
constexpr int64_t PartAlignBytes = 4096;

/// The output is privatised when it has at most this many cells...
constexpr int64_t MaxPrivateCells = 1 << 16;
/// ...and the source has at least this many elements per output cell.
constexpr int64_t MinSourcePerCell = 4;
} // namespace permute

//===-- Shapes ------------------------------------------------------------===//

/// Sets N's shape to extents E; an error naming N where they make no shape
/// (a negative extent, a size that overflows).
rt::Status setShape(Node &N, const std::vector<int64_t> &E);

//===-- The launchers -----------------------------------------------------===//

const Launcher &materializeLauncher();
const Launcher &foldLauncher();
const Launcher &foldSegLauncher();
const Launcher &scanLauncher(bool Left);
const Launcher &scanSegLauncher(bool Left);
const Launcher &scanRowsLauncher(bool Left);
const Launcher &permuteLauncher();
const Launcher &stencilLauncher();
const Launcher &filterLauncher();

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_HOST_LAUNCHERS_H
