// JS face of the malloc settings (malloc_tuning.h). Called by the service at
// its start, from the main thread; any JS thread may call it, and only the
// first call in the process changes anything.
//   tuneMalloc() -> { arenaMax: number | null, mmapThresholdBytes: number | null }
//     null: left as it was (the operator's variable is set, or glibc refused)
#pragma once

#include <napi.h>

namespace chorus {

Napi::Value TuneMallocBinding(const Napi::CallbackInfo& info);

}  // namespace chorus
