// Voices of one architecture (every Piper voice of a quality shares its
// graph; only the weights differ) share one encoder session: the encoder is
// loaded as a template, its float weights turned into graph inputs
// (src/engine/onnx/encoder-template.ts), and each voice feeds its own weights
// on every run. What ONNX Runtime holds for a graph (its nodes, kernels and
// plans: ~8 MB for a medium voice's encoder, as much as an x_low's) is then
// paid once per architecture, not once per voice. Measured on the medium
// stand-in: the same samples, the encoder 1.013x the time (36 alternated
// runs: its weights are no longer folded or pre-packed), loads 1 s instead
// of 3 s, see README, "Sizing".
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ort_runtime.h"

namespace chorus {

// The live shared encoder session for `key`, creating it with `make` when
// there is none. `key` must identify the template's bytes and the session's
// settings. An entry lives while any voice holds it.
// Thread safety: any thread; ORT sessions run from several threads at once.
std::shared_ptr<Ort::Session> FindOrCreateSharedEncoder(const std::string& key,
                                                        const std::function<std::unique_ptr<Ort::Session>()>& make);

}  // namespace chorus
