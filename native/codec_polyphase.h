// The inner loop of Chorus's polyphase resampler (src/audio/polyphase-
// resampler.ts designs the filter and keeps the stream's state): for each
// output sample, one phase's taps against a window of the input, in single
// precision (exact for 16-bit input; rounding noise far below the 16-bit
// output's own), rounded and clamped to 16 bits.
//
// Threads: a PolyphaseKernel is immutable after construction; Run may be
// called from any number of threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace chorus {

class PolyphaseKernel {
 public:
  // coefficients[phase × taps + k], up phases; each output advances the
  // input position by down / up samples.
  PolyphaseKernel(std::vector<float> coefficients, int up, int down, int taps);

  // Writes `count` outputs. Output 0 reads input[start … start + taps) with
  // phase `phase`; output n reads from start + ⌊(phase + n × down) / up⌋ with
  // phase (phase + n × down) mod up. Throws (ERR_INVALID_ARGUMENT) if any
  // read would fall outside input[0 … input_length).
  void Run(const float* input, size_t input_length, size_t start, int phase, size_t count, int16_t* out) const;

  int up() const { return up_; }

 private:
  std::vector<float> coefficients_;
  int up_;
  int down_;
  int taps_;
};

}  // namespace chorus
