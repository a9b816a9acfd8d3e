//===- ArrayTests.cpp - Scenarios for shapes, element types and arrays ----===//
//
// Each test is named after the scenario it runs. Rejected input is checked by
// its exact message, not merely by the fact that it failed.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Array.h"
#include "llquote/runtime/BufferPool.h"
#include <thread>
#include <cstdint>
#include <doctest/doctest.h>
#include <limits>
#include <vector>

using namespace llq::rt;

namespace {

Shape shapeOf(std::initializer_list<int64_t> Extents) {
  Expected<Shape> S = Shape::make(Extents);
  REQUIRE_MESSAGE(S, S.message());
  return *S;
}

/// fromVector then toVector gives back Values, in an aligned owned buffer.
template <typename T> void checkRoundTrip(std::vector<T> Values) {
  Shape S = shapeOf({int64_t(Values.size())});
  Expected<Array> A = Array::fromVector(S, Values);
  REQUIRE_MESSAGE(A, A.message());
  CHECK(A->type() == ElemType::of<T>());
  CHECK(byteSize(A->type().field(0)) == sizeof(T));
  CHECK(reinterpret_cast<uintptr_t>(A->data(0)) % BufferAlignment == 0);
  Expected<std::vector<T>> Back = A->template toVector<T>();
  REQUIRE_MESSAGE(Back, Back.message());
  CHECK(*Back == Values);
}

} // namespace

TEST_CASE("shapes_dim0_to_dim4_round_trip_every_index") {
  for (std::initializer_list<int64_t> Extents :
       {std::initializer_list<int64_t>{},
        {5},
        {3, 4},
        {2, 3, 4},
        {2, 3, 4, 5}}) {
    Shape S = shapeOf(Extents);
    CHECK(S.rank() == Extents.size());
    int64_t Wrong = 0;
    for (int64_t L = 0; L < S.size(); ++L) {
      Shape::Index I = S.fromIndex(L);
      Wrong += !S.contains(I) || S.toIndex(I) != L;
    }
    CHECK_MESSAGE(Wrong == 0, S.str());
  }
  Shape Scalar;
  CHECK(Scalar.rank() == 0);
  CHECK(Scalar.size() == 1);
  CHECK(Scalar.toIndex({}) == 0);
  CHECK(Scalar.str() == "[]");

  // Row-major: the last index varies fastest.
  Shape S = shapeOf({2, 3, 4});
  CHECK(S.size() == 24);
  CHECK(S.toIndex({1, 2, 3}) == 1 * 12 + 2 * 4 + 3);
  CHECK(S.fromIndex(13) == Shape::Index{1, 0, 1});
  CHECK(S.str() == "[2, 3, 4]");
  CHECK_FALSE(S.contains({2, 0, 0}));
  CHECK_FALSE(S.contains({0, -1, 0}));
}

TEST_CASE("shape_with_a_zero_extent_is_empty_even_if_others_are_huge") {
  int64_t Big = std::numeric_limits<int64_t>::max();
  Shape S = shapeOf({Big, 0, Big});
  CHECK(S.size() == 0);
}

TEST_CASE("shape_rejects_negative_extents_overflow_and_excess_rank") {
  CHECK(Shape::make({3, -1}).message() ==
        "extent -1 of dimension 1 is negative");
  CHECK(Shape::make({int64_t(1) << 32, int64_t(1) << 32}).message() ==
        "shape [4294967296, 4294967296] has more than 2^63-1 elements");
  CHECK(Shape::make(std::vector<int64_t>(9, 1)).message() ==
        "rank 9 is above the maximum of 8");
}

TEST_CASE("every_scalar_kind_round_trips_through_an_array") {
  checkRoundTrip<int8_t>({-128, 0, 127});
  checkRoundTrip<int16_t>({-32768, 1, 32767});
  checkRoundTrip<int32_t>({std::numeric_limits<int32_t>::min(), 2, 3});
  checkRoundTrip<int64_t>({std::numeric_limits<int64_t>::min(), 0, 4});
  checkRoundTrip<uint8_t>({0, 200, 255});
  checkRoundTrip<uint16_t>({0, 60000});
  checkRoundTrip<uint32_t>({0, 4000000000u});
  checkRoundTrip<uint64_t>({0, std::numeric_limits<uint64_t>::max()});
  checkRoundTrip<float>({1.5f, -0.0f, 3e38f});
  checkRoundTrip<double>({1e300, -2.25});
  checkRoundTrip<bool>({true, false, true, true});
  checkRoundTrip<float>({}); // Empty arrays still get a real buffer.
}

TEST_CASE("bool_elements_are_stored_one_byte_each_as_zero_or_one") {
  Expected<Array> A =
      Array::fromVector(shapeOf({3}), std::vector<bool>{true, false, true});
  REQUIRE(A);
  const auto *Bytes = static_cast<const uint8_t *>(A->data(0));
  CHECK(Bytes[0] == 1);
  CHECK(Bytes[1] == 0);
  CHECK(Bytes[2] == 1);
}

TEST_CASE("tuple_array_is_stored_as_structure_of_arrays") {
  Shape S = shapeOf({2, 2});
  Expected<Array> A =
      Array::fromVectors(S, std::vector<int32_t>{1, 2, 3, 4},
                         std::vector<double>{0.5, 1.5, 2.5, 3.5},
                         std::vector<bool>{true, false, false, true});
  REQUIRE_MESSAGE(A, A.message());
  CHECK(A->type().str() == "(i32, f64, bool)");
  CHECK(A->type() == ElemType::of<std::tuple<int32_t, double, bool>>());
  REQUIRE(A->numFields() == 3);
  CHECK(A->buffers()[0] == A->data(0));
  CHECK(A->buffers()[2] == A->data(2));

  // One contiguous buffer per field, each indexed by the linear index.
  const auto *Ints = static_cast<const int32_t *>(A->data(0));
  const auto *Doubles = static_cast<const double *>(A->data(1));
  int64_t Linear = S.toIndex({1, 0});
  CHECK(Ints[Linear] == 3);
  CHECK(Doubles[Linear] == 2.5);

  CHECK(*A->toVector<int32_t>(0) == std::vector<int32_t>{1, 2, 3, 4});
  CHECK(*A->toVector<double>(1) == std::vector<double>{0.5, 1.5, 2.5, 3.5});
  CHECK(*A->toVector<bool>(2) == std::vector<bool>{true, false, false, true});
}

TEST_CASE("owned_buffers_are_64_byte_aligned_and_zero_filled") {
  for (int64_t N : {0, 1, 3, 63, 64, 65, 1000}) {
    Expected<Array> A = Array::create(
        ElemType::tuple({ScalarKind::I8, ScalarKind::F64, ScalarKind::U16}),
        shapeOf({N}));
    REQUIRE(A);
    CHECK(A->ownsData());
    for (size_t F = 0; F < A->numFields(); ++F) {
      CHECK(reinterpret_cast<uintptr_t>(A->data(F)) % 64 == 0);
      const auto *Bytes = static_cast<const uint8_t *>(A->data(F));
      int NonZero = 0;
      for (int64_t B = 0; B < N * int64_t(byteSize(A->type().field(F))); ++B)
        NonZero += Bytes[B] != 0;
      CHECK(NonZero == 0);
    }
  }
}

TEST_CASE("wrapping_a_user_buffer_is_zero_copy") {
  std::vector<float> User{1, 2, 3, 4, 5, 6};
  Expected<Array> View = Array::wrap(shapeOf({2, 3}), User.data());
  REQUIRE_MESSAGE(View, View.message());
  CHECK(View->data(0) == User.data());
  CHECK_FALSE(View->ownsData());

  // Writes through the array land in the user's memory, and back.
  (*View->fieldData<float>(0))[4] = 50;
  CHECK(User[4] == 50);
  User[0] = -1;
  CHECK(*View->toVector<float>() == std::vector<float>{-1, 2, 3, 4, 50, 6});

  // A clone owns a separate, aligned copy.
  Expected<Array> Copy = View->clone();
  REQUIRE(Copy);
  CHECK(Copy->ownsData());
  CHECK(Copy->data(0) != User.data());
  CHECK(reinterpret_cast<uintptr_t>(Copy->data(0)) % 64 == 0);
  CHECK(*Copy->toVector<float>() == *View->toVector<float>());
}

TEST_CASE("moving_an_array_keeps_its_buffers") {
  Expected<Array> A =
      Array::fromVector(shapeOf({4}), std::vector<int64_t>{1, 2, 3, 4});
  REQUIRE(A);
  void *Buffer = A->data(0);
  Array Moved = std::move(*A);
  CHECK(Moved.data(0) == Buffer);
  CHECK(*Moved.toVector<int64_t>() == std::vector<int64_t>{1, 2, 3, 4});
}

TEST_CASE("unit_tuple_array_has_no_buffers") {
  Expected<Array> A = Array::create(ElemType::tuple({}), shapeOf({7}));
  REQUIRE(A);
  CHECK(A->numFields() == 0);
  CHECK(A->size() == 7);
  CHECK(A->type().str() == "()");
}

TEST_CASE("bad_array_inputs_are_rejected_with_messages") {
  Shape S = shapeOf({2, 3});
  CHECK(Array::fromVector(S, std::vector<float>(5)).message() ==
        "field 0 has 5 values but shape [2, 3] has 6 elements");
  CHECK(Array::fromVectors(S, std::vector<int8_t>(6), std::vector<double>(7))
            .message() ==
        "field 1 has 7 values but shape [2, 3] has 6 elements");

  Expected<Array> A = Array::fromVector(S, std::vector<float>(6, 1.0f));
  REQUIRE(A);
  CHECK(A->toVector<double>().message() == "field 0 holds f32, not f64");
  CHECK(A->fieldData<int32_t>().message() == "field 0 holds f32, not i32");
  CHECK(A->toVector<float>(1).message() ==
        "field 1 does not exist in an array of f32");

  // Element bytes that overflow, or exceed what a buffer may span.
  Shape Huge = shapeOf({int64_t(1) << 61});
  CHECK(Array::create(ElemType::scalar(ScalarKind::F64), Huge).message() ==
        "array of shape [2305843009213693952] and f64 elements needs more "
        "than 9223372036854775744 bytes per buffer");
  CHECK(Array::create(ElemType::scalar(ScalarKind::I32), Huge).message() ==
        "array of shape [2305843009213693952] and i32 elements needs more "
        "than 9223372036854775744 bytes per buffer");

  // Views: buffer count, null and misaligned buffers.
  std::vector<double> D(6);
  ElemType Pair = ElemType::tuple({ScalarKind::F64, ScalarKind::F64});
  CHECK(Array::wrap(Pair, S, {D.data()}).message() ==
        "element type (f64, f64) has 2 fields but 1 buffers were given");
  CHECK(Array::wrap(Pair, S, {D.data(), nullptr}).message() ==
        "buffer 1 is null");
  void *Odd = reinterpret_cast<char *>(D.data()) + 4;
  CHECK(Array::wrap(ElemType::scalar(ScalarKind::F64), S, {Odd}).message() ==
        "buffer 0 is not aligned to 8 bytes for its f64 elements");
  CHECK(
      Array::wrap(ElemType::scalar(ScalarKind::F64), shapeOf({0}), {nullptr}));
}

TEST_CASE("a_buffer_pool_gives_a_freed_buffer_to_the_next_array_of_its_size") {
  auto Pool = BufferPool::create(size_t(64) << 20);
  Shape Sh = *Shape::make({1 << 20}); // 4 MiB of floats
  const void *First = nullptr;
  {
    Array A = *Array::create(ElemType::of<float>(), Sh,
                             Array::Fill::Uninitialized, Pool.get());
    First = A.data(0);
    (*A.fieldData<float>())[12345] = 2.5f;
  }
  CHECK(Pool->heldBytes() == (size_t(4) << 20));
  // The same size: the same buffer, its contents as they were left.
  Array B = *Array::create(ElemType::of<float>(), Sh,
                           Array::Fill::Uninitialized, Pool.get());
  CHECK(B.data(0) == First);
  CHECK((*B.fieldData<float>())[12345] == 2.5f);
  CHECK(Pool->reuses() == 1);
  CHECK(Pool->heldBytes() == 0);
  // Zero-filled on request, whatever the buffer held.
  B = *Array::create(ElemType::of<float>(), Sh, Array::Fill::Zero, Pool.get());
  CHECK((*B.fieldData<float>())[12345] == 0.0f);
  // Another size is a new buffer; small ones are the heap's.
  Array C = *Array::create(ElemType::of<double>(), Sh,
                           Array::Fill::Uninitialized, Pool.get());
  CHECK(C.data(0) != First);
  { Array Small = *Array::create(ElemType::of<float>(), *Shape::make({100}),
                                 Array::Fill::Zero, Pool.get()); }
  CHECK(Pool->heldBytes() <= (size_t(4) << 20));
}

TEST_CASE("a_buffer_pool_keeps_within_its_bound_and_its_buffers_outlive_it") {
  auto Pool = BufferPool::create(size_t(10) << 20);
  std::vector<Array> Arrays;
  for (int I = 1; I <= 4; ++I)
    Arrays.push_back(*Array::create(ElemType::of<uint8_t>(),
                                    *Shape::make({int64_t(I) << 20}),
                                    Array::Fill::Uninitialized, Pool.get()));
  Arrays.clear(); // 1 + 2 + 3 + 4 MiB freed, at most 10 kept
  CHECK(Pool->heldBytes() <= (size_t(10) << 20));
  CHECK(Pool->heldBytes() >= (size_t(4) << 20)); // the last freed is kept
  // A bound of 0 keeps nothing.
  auto None = BufferPool::create(0);
  { Array A = *Array::create(ElemType::of<float>(), *Shape::make({1 << 20}),
                             Array::Fill::Zero, None.get()); }
  CHECK(None->heldBytes() == 0);
  // An array that outlives its pool frees its buffer itself.
  Array Late = *Array::create(ElemType::of<float>(), *Shape::make({1 << 20}),
                              Array::Fill::Zero, Pool.get());
  Pool.reset();
  (*Late.fieldData<float>())[7] = 1.0f;
}

TEST_CASE("a_buffer_pool_serves_several_threads") {
  auto Pool = BufferPool::create(size_t(32) << 20);
  auto Work = [&](int Seed) {
    for (int I = 0; I < 200; ++I) {
      Array A = *Array::create(ElemType::of<int32_t>(),
                               *Shape::make({int64_t(1 + (I + Seed) % 3) << 18}),
                               Array::Fill::Uninitialized, Pool.get());
      int32_t *P = *A.fieldData<int32_t>();
      P[0] = Seed;
      P[A.size() - 1] = I;
      CHECK(P[0] == Seed);
      CHECK(P[A.size() - 1] == I);
    }
  };
  std::thread T1(Work, 1), T2(Work, 2);
  T1.join();
  T2.join();
  CHECK(Pool->reuses() > 0);
  CHECK(Pool->heldBytes() <= (size_t(32) << 20));
}
