//===- Status.h - LLVM-free success-or-error values -------------*- C++ -*-===//
//
// The runtime is plain C++ so that a program can run skeleton kernels without
// linking LLVM; it therefore cannot use llvm::Error. Status and Expected<T>
// play those roles: a user mistake (a vector of the wrong length, a kernel
// that reports a failure) comes back as a value, never as a crash or an
// exception escaping the library. Broken invariants remain assertions.
//
// Unlike llvm::Error, an unchecked Status is not fatal; [[nodiscard]] is the
// only reminder to look at it.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_STATUS_H
#define LLQUOTE_RUNTIME_STATUS_H

#include <cassert>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace llq::rt {

/// Success, or a failure with a message and, when the failure was a C++
/// exception, that exception so a caller can rethrow it unchanged.
class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  Status(Status &&) = default;
  Status &operator=(Status &&) = default;
  Status(const Status &O)
      : F(O.F ? std::make_unique<Failure>(*O.F) : nullptr) {}
  Status &operator=(const Status &O) {
    if (this != &O)
      F = O.F ? std::make_unique<Failure>(*O.F) : nullptr;
    return *this;
  }

  static Status error(std::string Message,
                      std::exception_ptr Exception = nullptr) {
    Status S;
    S.F = std::make_unique<Failure>(
        Failure{std::move(Message), std::move(Exception)});
    return S;
  }

  bool ok() const { return !F; }
  /// Empty on success.
  const std::string &message() const {
    static const std::string None;
    return F ? F->Message : None;
  }
  /// Null unless the failure was an exception thrown by user code.
  const std::exception_ptr &exception() const {
    static const std::exception_ptr None;
    return F ? F->Exception : None;
  }

private:
  /// A success is one null pointer: passed back through every layer of a
  /// launch, it costs what a pointer does.
  struct Failure {
    std::string Message;
    std::exception_ptr Exception;
  };
  std::unique_ptr<Failure> F;
};

template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T Value) : Storage(std::in_place_index<0>, std::move(Value)) {}
  Expected(Status Error) : Storage(std::in_place_index<1>, std::move(Error)) {
    assert(!std::get<1>(Storage).ok() &&
           "an Expected needs a value or a failure");
  }

  explicit operator bool() const { return Storage.index() == 0; }

  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(value()); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  /// Success when a value is held.
  Status status() const { return *this ? Status() : std::get<1>(Storage); }
  /// Empty when a value is held.
  const std::string &message() const {
    static const std::string None;
    return *this ? None : std::get<1>(Storage).message();
  }

private:
  T &value() {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(Storage);
  }
  const T &value() const {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(Storage);
  }

  std::variant<T, Status> Storage;
};

} // namespace llq::rt

#endif // LLQUOTE_RUNTIME_STATUS_H
