#include "runtime_binding.h"

#include "errors.h"
#include "espeak_runtime.h"
#include "ort_runtime.h"

namespace chorus {

Napi::Value LoadOrt(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "loadOrt(libraryPath: string)");
    LoadOrtRuntime(info[0].As<Napi::String>().Utf8Value());
    return Napi::String::New(env, OrtVersion());
  });
}

Napi::Value InitEspeak(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "initEspeak(dataPath: string)");
    return Napi::Number::New(env, InitializeEspeak(info[0].As<Napi::String>().Utf8Value()));
  });
}

}  // namespace chorus
