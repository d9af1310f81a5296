#include "codec_polyphase_binding.h"

#include <cmath>
#include <string>
#include <vector>

#include "errors.h"

namespace chorus {
namespace {

// A non-negative integer argument (a count or an index), checked exactly.
double IndexArgument(const Napi::CallbackInfo& info, size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsNumber()) {
    throw NativeError(kErrInvalidArgument, std::string("PolyphaseKernel: ") + name + " must be a number");
  }
  const double value = info[index].As<Napi::Number>().DoubleValue();
  if (!(value >= 0) || value != std::floor(value) || value > 9007199254740991.0) {
    throw NativeError(kErrInvalidArgument, std::string("PolyphaseKernel: ") + name + " must be a non-negative integer");
  }
  return value;
}

Napi::Float32Array Float32Argument(const Napi::CallbackInfo& info, size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsTypedArray() ||
      info[index].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    throw NativeError(kErrInvalidArgument, std::string("PolyphaseKernel: ") + name + " must be a Float32Array");
  }
  return info[index].As<Napi::Float32Array>();
}

int SmallArgument(const Napi::CallbackInfo& info, size_t index, const char* name) {
  const double value = IndexArgument(info, index, name);
  if (value > 1 << 20) throw NativeError(kErrInvalidArgument, std::string("PolyphaseKernel: ") + name + " is too large");
  return static_cast<int>(value);
}

}  // namespace

Napi::Function PolyphaseKernelWrap::Define(Napi::Env env) {
  return DefineClass(env, "PolyphaseKernel", {InstanceMethod<&PolyphaseKernelWrap::Run>("run")});
}

PolyphaseKernelWrap::PolyphaseKernelWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PolyphaseKernelWrap>(info) {
  Guarded(info.Env(), [&] { Build(info); });
}

void PolyphaseKernelWrap::Build(const Napi::CallbackInfo& info) {
  Napi::Float32Array coefficients = Float32Argument(info, 0, "coefficients");
  std::vector<float> copy(coefficients.Data(), coefficients.Data() + coefficients.ElementLength());
  kernel_ = std::make_unique<PolyphaseKernel>(std::move(copy), SmallArgument(info, 1, "up"), SmallArgument(info, 2, "down"),
                                              SmallArgument(info, 3, "taps"));
}

Napi::Value PolyphaseKernelWrap::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    Napi::Float32Array input = Float32Argument(info, 0, "input");
    const size_t start = static_cast<size_t>(IndexArgument(info, 1, "start"));
    const int phase = SmallArgument(info, 2, "phase");
    const size_t count = static_cast<size_t>(IndexArgument(info, 3, "count"));
    // The output can be no longer than the input allows (checked in Run);
    // refuse absurd counts before allocating.
    if (count > input.ElementLength() * static_cast<size_t>(kernel_->up()) + 1) {
      throw NativeError(kErrInvalidArgument, "PolyphaseKernel.run: count exceeds what the input can give");
    }
    Napi::Int16Array out = Napi::Int16Array::New(env, count);
    kernel_->Run(input.Data(), input.ElementLength(), start, phase, count, out.Data());
    return out;
  });
}

}  // namespace chorus
