#include "malloc_tuning_binding.h"

#include "errors.h"
#include "malloc_tuning.h"

namespace chorus {
namespace {

Napi::Value SettingOrNull(Napi::Env env, int value) {
  return value == 0 ? env.Null() : Napi::Number::New(env, value);
}

}  // namespace

Napi::Value TuneMallocBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    const MallocTuning tuning = TuneMalloc();
    Napi::Object result = Napi::Object::New(env);
    result.Set("arenaMax", SettingOrNull(env, tuning.arena_max));
    result.Set("mmapThresholdBytes", SettingOrNull(env, tuning.mmap_threshold_bytes));
    return result;
  });
}

}  // namespace chorus
