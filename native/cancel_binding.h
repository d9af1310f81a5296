// JS class CancelToken: `new CancelToken()`, `token.cancel()`,
// `token.cancelled`. Passed to Voice#infer; cancel() may be called at any
// time on the JS thread that owns it and stops the ORT run in flight.
#pragma once

#include <napi.h>

#include <memory>

#include "cancel.h"

namespace chorus {

class CancelTokenWrap : public Napi::ObjectWrap<CancelTokenWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit CancelTokenWrap(const Napi::CallbackInfo& info);
  std::shared_ptr<CancelState> state() const { return state_; }

 private:
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value IsCancelled(const Napi::CallbackInfo& info);

  std::shared_ptr<CancelState> state_ = std::make_shared<CancelState>();
};

}  // namespace chorus
