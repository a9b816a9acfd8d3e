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

  static Status error(std::string Message,
                      std::exception_ptr Exception = nullptr) {
    Status S;
    S.Failed = true;
    S.Message = std::move(Message);
    S.Exception = std::move(Exception);
    return S;
  }

  bool ok() const { return !Failed; }
  /// Empty on success.
  const std::string &message() const { return Message; }
  /// Null unless the failure was an exception thrown by user code.
  const std::exception_ptr &exception() const { return Exception; }

private:
  bool Failed = false;
  std::string Message;
  std::exception_ptr Exception;
};

/// A T, or the failed Status that explains why there is none. Converts to
/// true when it holds a value, as llvm::Expected does.
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
