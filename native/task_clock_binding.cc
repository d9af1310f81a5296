#include "task_clock_binding.h"

#include "errors.h"
#include "task_clock.h"

namespace chorus {

Napi::Value TaskTimesBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    std::vector<TaskTotals> totals = TaskTimes();
    Napi::Array out = Napi::Array::New(env, totals.size());
    for (uint32_t i = 0; i < totals.size(); ++i) {
      Napi::Object entry = Napi::Object::New(env);
      entry.Set("name", totals[i].name);
      entry.Set("count", static_cast<double>(totals[i].count));
      entry.Set("wallSeconds", totals[i].wall_seconds);
      entry.Set("cpuSeconds", totals[i].cpu_seconds);
      out.Set(i, entry);
    }
    return out;
  });
}

Napi::Value NameThreadBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "nameThread(name: string)");
    NameCurrentThread(info[0].As<Napi::String>().Utf8Value());
    return env.Undefined();
  });
}

}  // namespace chorus
