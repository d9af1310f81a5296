#include "codec_polyphase.h"

#include <cmath>
#include <string>
#include <utility>

#include "errors.h"

namespace chorus {
namespace {

constexpr int kLanes = 8;

// Eight independent partial sums, so the compiler can keep them in vector
// registers; the tail (taps not a multiple of eight) is summed after.
inline float Dot(const float* c, const float* x, int taps) {
  float lanes[kLanes] = {};
  int k = 0;
  for (; k + kLanes <= taps; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += c[k + j] * x[k + j];
  }
  float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; k < taps; ++k) sum += c[k] * x[k];
  return sum;
}

// Math.round's rule (halves go up), then the 16-bit range.
inline int16_t ToSample(float value) {
  const float rounded = std::floor(value + 0.5f);
  if (rounded > 32767.0f) return 32767;
  if (rounded < -32768.0f) return -32768;
  return static_cast<int16_t>(rounded);
}

}  // namespace

PolyphaseKernel::PolyphaseKernel(std::vector<float> coefficients, int up, int down, int taps)
    : coefficients_(std::move(coefficients)), up_(up), down_(down), taps_(taps) {
  if (up <= 0 || down <= 0 || taps <= 0 || coefficients_.size() != static_cast<size_t>(up) * static_cast<size_t>(taps)) {
    throw NativeError(kErrInvalidArgument, "PolyphaseKernel: expected up × taps coefficients and positive up, down and taps");
  }
}

void PolyphaseKernel::Run(const float* input, size_t input_length, size_t start, int phase, size_t count,
                          int16_t* out) const {
  if (count == 0) return;
  if (phase < 0 || phase >= up_) throw NativeError(kErrInvalidArgument, "PolyphaseKernel.run: phase out of range");
  // The last output starts furthest in: check its reach once, before any read.
  const uint64_t last = start + (static_cast<uint64_t>(phase) + (count - 1) * static_cast<uint64_t>(down_)) / up_;
  if (last + static_cast<uint64_t>(taps_) > input_length) {
    throw NativeError(kErrInvalidArgument, "PolyphaseKernel.run: the input ends before the last output's taps (needs " +
                                               std::to_string(last + taps_) + " samples, has " +
                                               std::to_string(input_length) + ")");
  }
  const int step = down_ / up_;
  const int step_phase = down_ % up_;
  size_t index = start;
  for (size_t n = 0; n < count; ++n) {
    out[n] = ToSample(Dot(&coefficients_[static_cast<size_t>(phase) * taps_], input + index, taps_));
    index += step;
    phase += step_phase;
    if (phase >= up_) {
      phase -= up_;
      ++index;
    }
  }
}

}  // namespace chorus
