// JS face of the load claims (voice_registry.h): the calling thread is the
// owner, and its claims are dropped when it stops (addon.cc).
//   claimLoad(key) -> boolean   true: load it; false: loaded, or another thread is loading it
//   releaseClaim(key)           after this thread's load, whether it worked or not
#pragma once

#include <napi.h>

namespace chorus {

Napi::Value ClaimLoadBinding(const Napi::CallbackInfo& info);
Napi::Value ReleaseClaimBinding(const Napi::CallbackInfo& info);

}  // namespace chorus
