// ONNX Runtime holds less for a graph it is given already optimised than for
// one it optimises while loading: the optimiser's rewrites leave part of what
// they replaced in the session for its whole life. Measured on a medium
// voice's encoder (5,651 nodes, 2,214 once optimised): 3 MiB less live heap
// per session (heaptrack), the voice's memory_bytes 74.9 -> 70.8 MB, the
// same samples (README, "Sizing"). So a graph is optimised once into memory
// and the session is made from the result.
#pragma once

#include <cstdint>
#include <vector>

#include "ort_runtime.h"
#include "voice.h"

namespace chorus {

// The model as ONNX Runtime optimises it under `options` (whose optimisation
// level decides how far), serialised to ONNX; empty when that cannot be done
// here (no memfd: not Linux), or when ONNX Runtime refuses the model, so that
// the caller loads the model as it is and reports that load's error.
// Thread safety: any thread.
std::vector<uint8_t> PreoptimizedModel(const ModelBytes& model, const Ort::SessionOptions& options);

}  // namespace chorus
