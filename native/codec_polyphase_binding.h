// JS face of the resampler's inner loop (codec_polyphase.h); synchronous, on
// the calling thread:
//   new PolyphaseKernel(coefficients: Float32Array, up, down, taps)
//   kernel.run(input: Float32Array, start, phase, count) -> Int16Array
//     `count` output samples (see PolyphaseKernel::Run); a read past the
//     input's end is refused before anything is read.
// Failures throw an Error with code ERR_INVALID_ARGUMENT.
#pragma once

#include <napi.h>

#include <memory>

#include "codec_polyphase.h"

namespace chorus {

class PolyphaseKernelWrap : public Napi::ObjectWrap<PolyphaseKernelWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit PolyphaseKernelWrap(const Napi::CallbackInfo& info);

 private:
  void Build(const Napi::CallbackInfo& info);
  Napi::Value Run(const Napi::CallbackInfo& info);

  std::unique_ptr<PolyphaseKernel> kernel_;
};

}  // namespace chorus
