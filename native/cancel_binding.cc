#include "cancel_binding.h"

namespace chorus {

Napi::Function CancelTokenWrap::Define(Napi::Env env) {
  return DefineClass(env, "CancelToken",
                     {InstanceMethod<&CancelTokenWrap::Cancel>("cancel"),
                      InstanceAccessor<&CancelTokenWrap::IsCancelled>("cancelled")});
}

CancelTokenWrap::CancelTokenWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CancelTokenWrap>(info) {}

Napi::Value CancelTokenWrap::Cancel(const Napi::CallbackInfo& info) {
  state_->Cancel();
  return info.Env().Undefined();
}

Napi::Value CancelTokenWrap::IsCancelled(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), state_->IsCancelled());
}

}  // namespace chorus
