//===- main.cpp - doctest runner for llquote's unit tests -----------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
