// JS face of process-wide setup. Each may be called from any JS thread; the
// work is done once per process and later calls with the same argument are
// cheap no-ops.
//   loadOrt(libraryPath) -> string   the ORT version loaded
//   initEspeak(dataPath) -> number   espeak's sample rate
#pragma once

#include <napi.h>

namespace chorus {

Napi::Value LoadOrt(const Napi::CallbackInfo& info);
Napi::Value InitEspeak(const Napi::CallbackInfo& info);

}  // namespace chorus
