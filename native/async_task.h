// Base of every async native call: work on the libuv thread pool, a promise
// on the JS thread. It keeps the JS call site's stack (captured when the call
// is made) so a rejection says where it came from, and it settles the promise
// exactly once whatever is thrown: in Execute (off the JS thread), while
// building the result (OnOK, which runs with no JS frame to catch anything),
// or while building the error itself.
#pragma once

#include <napi.h>

#include <string>

#include "errors.h"
#include "task_clock.h"

namespace chorus {

class PromiseWorker : public Napi::AsyncWorker {
 public:
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  PromiseWorker(Napi::Env env, const char* name)
      : Napi::AsyncWorker(env, name), name_(name), deferred_(Napi::Promise::Deferred::New(env)) {
    // The stack of a fresh Error made now is the JS caller's.
    Napi::Value stack = Napi::Error::New(env).Get("stack");
    if (stack.IsString()) call_site_ = stack.As<Napi::String>().Utf8Value();
  }

  // Off the JS thread: no N-API here.
  virtual void Run() = 0;
  // On the JS thread, after Run succeeded.
  virtual Napi::Value Result(Napi::Env env) = 0;

 private:
  void Execute() final {
    try {
      NameLibuvThread();
      TaskClock clock(name_);
      Run();
    } catch (...) {
      auto [code, message] = DescribeCurrentException();
      code_ = code;
      SetError(message);
    }
  }

  void OnOK() final {
    Napi::Env env = Env();
    try {
      deferred_.Resolve(Result(env));
    } catch (...) {
      if (env.IsExceptionPending()) env.GetAndClearPendingException();
      auto [code, message] = DescribeCurrentException();
      code_ = code;
      Reject(env, message);
    }
  }

  void OnError(const Napi::Error& error) final { Reject(Env(), error.Message()); }

  void Reject(Napi::Env env, const std::string& message) {
    try {
      Napi::Error error = MakeError(env, code_, message);
      if (!call_site_.empty()) {
        // Keep the message line, then the caller's frames.
        size_t frames = call_site_.find('\n');
        std::string stack = error.Get("name").ToString().Utf8Value() + ": " + message;
        if (frames != std::string::npos) stack += call_site_.substr(frames);
        error.Set("stack", Napi::String::New(env, stack));
      }
      deferred_.Reject(error.Value());
    } catch (...) {
      // Even the error could not be built (out of memory): reject with what
      // can still be made, so the promise never hangs.
      if (env.IsExceptionPending()) env.GetAndClearPendingException();
      try {
        deferred_.Reject(Napi::String::New(env, "Native failure: " + message));
      } catch (...) {
        if (env.IsExceptionPending()) env.GetAndClearPendingException();
      }
    }
  }

  // The libuv pool's threads are otherwise all called "node": named once
  // each, a per-thread CPU reading tells them from the others.
  static void NameLibuvThread() {
    thread_local bool named = false;
    if (!named) NameCurrentThread("chorus-uv");
    named = true;
  }

  const char* name_;
  Napi::Promise::Deferred deferred_;
  std::string call_site_;
  const char* code_ = kErrNative;
};

}  // namespace chorus
