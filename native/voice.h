// One loaded Piper model: an ONNX Runtime session plus what inference needs
// to know about its inputs. No N-API here; see voice_binding.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cancel.h"
#include "ort_runtime.h"

namespace chorus {

struct SessionSettings {
  int intra_op_threads = 1;
  int inter_op_threads = 1;
  // 0 disable, 1 basic, 2 extended, 3 all (ORT's GraphOptimizationLevel).
  int optimization_level = 3;
};

struct InferenceRequest {
  std::vector<int64_t> ids;
  float noise_scale = 0.667f;
  float length_scale = 1.0f;
  float noise_w = 0.8f;
  int64_t speaker_id = 0;
};

class Voice {
 public:
  // Loads the model; throws NativeError(kErrOrt) naming the file on failure.
  // Thread safety: any thread (ORT session creation is thread-safe).
  Voice(const std::string& model_path, const SessionSettings& settings);

  // Runs the model on one sentence's ids and returns its float output tensor
  // (the samples), owned by ORT until the caller copies them into JS memory.
  // Throws NativeError(kErrCancelled) when `cancel` was cancelled before or
  // during the run, NativeError(kErrOrt) for any other failure.
  // Thread safety: any thread, concurrently (ORT's Session::Run is safe to
  // call from several threads on one session).
  Ort::Value Infer(const InferenceRequest& request, CancelState* cancel);

  bool has_speaker_input() const { return has_sid_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<Ort::Session> session_;
  bool has_sid_ = false;
};

}  // namespace chorus
