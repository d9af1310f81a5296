// Native failures travel to JavaScript as Error objects carrying a `code`,
// which src/engine/native.ts turns into the project's typed error classes.
#pragma once

#include <napi.h>

#include <stdexcept>
#include <string>

namespace chorus {

// Error codes shared with src/engine/errors.ts.
inline constexpr const char* kErrOrtLoad = "ERR_ORT_LOAD";
inline constexpr const char* kErrOrt = "ERR_ORT";
inline constexpr const char* kErrEspeak = "ERR_ESPEAK";
inline constexpr const char* kErrCancelled = "ERR_CANCELLED";
inline constexpr const char* kErrInvalidArgument = "ERR_INVALID_ARGUMENT";
inline constexpr const char* kErrClosed = "ERR_VOICE_CLOSED";

// A failure raised off the JS thread; converted to a JS error on it.
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

}  // namespace chorus
