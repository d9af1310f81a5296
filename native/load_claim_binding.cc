#include "load_claim_binding.h"

#include <string>

#include "addon_data.h"
#include "errors.h"
#include "voice_registry.h"

namespace chorus {
namespace {

std::string KeyArgument(const Napi::CallbackInfo& info, const char* usage) {
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(info.Env(), usage);
  return info[0].As<Napi::String>().Utf8Value();
}

}  // namespace

Napi::Value ClaimLoadBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    std::string key = KeyArgument(info, "claimLoad(key: string)");
    return Napi::Boolean::New(env, ClaimLoad(key, GetAddonData(env)));
  });
}

Napi::Value ReleaseClaimBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    std::string key = KeyArgument(info, "releaseClaim(key: string)");
    ReleaseClaim(key, GetAddonData(env));
    return env.Undefined();
  });
}

}  // namespace chorus
