#include "cancel_binding.h"

#include "errors.h"

namespace chorus {

Napi::Function CancelTokenWrap::Define(Napi::Env env) {
  return DefineClass(env, "CancelToken",
                     {InstanceMethod<&CancelTokenWrap::Cancel>("cancel"),
                      InstanceAccessor<&CancelTokenWrap::IsCancelled>("cancelled")});
}

CancelTokenWrap::CancelTokenWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CancelTokenWrap>(info) {}

Napi::Value CancelTokenWrap::Cancel(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    state_->Cancel();
    return info.Env().Undefined();
  });
}

Napi::Value CancelTokenWrap::IsCancelled(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value { return Napi::Boolean::New(info.Env(), state_->IsCancelled()); });
}

}  // namespace chorus
