// JS face of the task clocks (task_clock.h). Any JS thread may call them.
//   taskTimes() -> Array<{name, count, wallSeconds, cpuSeconds}>  totals since the process started
//   nameThread(name) -> undefined   names the calling JS thread (for per-thread CPU readings)
#pragma once

#include <napi.h>

namespace chorus {

Napi::Value TaskTimesBinding(const Napi::CallbackInfo& info);
Napi::Value NameThreadBinding(const Napi::CallbackInfo& info);

}  // namespace chorus
