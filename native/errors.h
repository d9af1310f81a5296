// Native failures travel to JavaScript as Error objects carrying a `code`,
// which src/engine/native.ts turns into the project's typed error classes.
// Nothing thrown in C++ may reach a place where no JS frame can catch it:
// every entry point runs its body through Guarded(), and async work through
// PromiseWorker (async_task.h), which catch everything, `...` included.
#pragma once

#include <napi.h>

#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "ort_runtime.h"

namespace chorus {

// Error codes shared with src/engine/native.ts.
inline constexpr const char* kErrOrtLoad = "ERR_ORT_LOAD";
inline constexpr const char* kErrOrt = "ERR_ORT";
inline constexpr const char* kErrEspeak = "ERR_ESPEAK";
inline constexpr const char* kErrCancelled = "ERR_CANCELLED";
inline constexpr const char* kErrInvalidArgument = "ERR_INVALID_ARGUMENT";
inline constexpr const char* kErrClosed = "ERR_VOICE_CLOSED";
inline constexpr const char* kErrOutOfMemory = "ERR_NATIVE_OUT_OF_MEMORY";
// An audio codec failed; src/audio/native-codecs.ts maps it.
inline constexpr const char* kErrEncoder = "ERR_ENCODER";
// FFmpeg's libavcodec (AAC) is missing or unusable; src/audio/avcodec.ts maps it.
inline constexpr const char* kErrAvcodecLoad = "ERR_AVCODEC_LOAD";
inline constexpr const char* kErrNative = "ERR_NATIVE";

// A failure with one of the codes above; thrown on any thread, converted to a
// JS error on the JS thread.
class NativeError : public std::runtime_error {
 public:
  NativeError(const char* code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  const char* code() const { return code_; }

 private:
  const char* code_;
};

inline Napi::Error MakeError(Napi::Env env, const char* code, const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  return error;
}

// The code and message of the exception being handled. Call only inside a
// catch block; it rethrows to classify and never lets anything escape.
inline std::pair<const char*, std::string> DescribeCurrentException() {
  try {
    throw;
  } catch (const NativeError& e) {
    return {e.code(), e.what()};
  } catch (const Ort::Exception& e) {
    return {kErrOrt, std::string("ONNX Runtime: ") + e.what()};
  } catch (const std::bad_alloc&) {
    return {kErrOutOfMemory, "Out of memory in the native addon"};
  } catch (const std::exception& e) {
    return {kErrNative, e.what()};
  } catch (...) {
    return {kErrNative, "Unknown native exception"};
  }
}

// Runs an entry point's body; a Napi::Error passes through (node-addon-api
// turns it into a JS exception), anything else becomes one with its code.
template <typename Fn>
auto Guarded(Napi::Env env, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    auto [code, message] = DescribeCurrentException();
    throw MakeError(env, code, message);
  }
}

}  // namespace chorus
