//===- TestMain.cpp - doctest entry point for the runtime tests -----------===//
//
// Only doctest's main lives here; the scenarios are in the other files.
//
//===----------------------------------------------------------------------===//

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
