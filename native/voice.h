// One loaded Piper model, shared by every thread of the process that uses it
// (see voice_registry.h): either one ONNX Runtime session for the whole graph,
// or two cut from it (src/engine/onnx/decoder-split.ts): the encoder (the
// model's inputs → latent [1, channels, frames]) and the decoder (latent →
// audio), so the decoder can run on bounded chunks; staged, three: the flow
// between them as a session of its own. No N-API here; see voice_binding.cc.
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
  // A split voice's encoder session; 0: intra_op_threads. The encoder runs
  // once per sentence before its decoder chunks spread over the workers, so
  // on an idle server its time adds to a long sentence's wait whole.
  int encoder_intra_op_threads = 0;
  int inter_op_threads = 1;
  // 0 disable, 1 basic, 2 extended, 3 all (ORT's GraphOptimizationLevel).
  int optimization_level = 3;
  // Make the graph-heavy session (the encoder, or the whole model) from the
  // graph ONNX Runtime has optimised, not from the model's: less memory, a
  // longer load (see graph_preoptimize.h).
  bool preoptimize = true;
  // A split voice given its encoder as a template (ModelParts) shares one
  // encoder session with every voice of the same template (shared_encoder.h).
  bool share_encoder = true;
};

// The model's bytes, borrowed for the duration of loading.
struct ModelBytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// A float weight the encoder template takes as an input: its bytes are
// [offset, offset + 4 * count of dims) of the encoder's bytes.
struct TemplateWeight {
  std::string name;
  std::vector<int64_t> dims;
  size_t offset = 0;
};

struct ModelParts {
  // Whole mode: the model as it is. Split mode: encoder and decoder.
  ModelBytes whole;
  ModelBytes encoder;
  ModelBytes decoder;
  // Staged split, optional: the flow between encoder and decoder (the
  // boundary → flow_output, the decoder's latent), run by Flow().
  ModelBytes flow;
  std::string flow_output;
  // Split mode: the encoder's outputs that the decoder (the flow, when
  // staged) takes, latent first.
  std::vector<std::string> boundary;
  // Split mode, optional: the encoder's output holding each phoneme id's
  // length in frames (Piper's Ceil node), requested after the boundary so
  // timing needs no second run; empty when the graph has none.
  std::string durations;
  // Split mode: how to feed the boundary (which tensors have a frame axis,
  // the context the chunks need), written by the TypeScript splitter and kept
  // with the shared sessions so that every thread finding them knows it.
  std::string split_info;
  // Split mode, optional: the encoder with its float weights as inputs, and
  // where each weight lies in `encoder`. Loaded instead of `encoder` when the
  // shared session can be had; `encoder` as it is otherwise.
  ModelBytes encoder_template;
  std::vector<TemplateWeight> encoder_weights;
};

struct InferenceRequest {
  std::vector<int64_t> ids;
  float noise_scale = 0.667f;
  float length_scale = 1.0f;
  float noise_w = 0.8f;
  int64_t speaker_id = 0;
  // The cores are taken by other runs: a split voice's encoder runs on one
  // thread (where it has a one-thread session), since a second thread would
  // only contend with them and spend more CPU on the same work.
  bool busy = false;
};

// A float tensor copied out of (or into) ORT: row-major data and its shape.
struct FloatTensor {
  std::vector<float> data;
  std::vector<int64_t> shape;
};

class Voice {
 public:
  // Creates the session(s). `label` names the model in errors.
  // Throws NativeError(kErrOrt) naming the model on failure.
  // Thread safety: any thread.
  Voice(const ModelParts& parts, const SessionSettings& settings, std::string label);

  // The whole pipeline for one sentence's ids (in split mode: encoder, then
  // the decoder on the whole latent). Returns the output tensor (samples).
  // Throws NativeError(kErrCancelled) when `cancel` fires, kErrOrt otherwise.
  // Thread safety: any thread, concurrently (ORT's Run is thread-safe).
  Ort::Value Infer(const InferenceRequest& request, CancelState* cancel);

  // Split mode only: the boundary tensors for one sentence, latent first,
  // then (when has_durations()) the durations [1, 1, ids] in frames.
  // Thread safety: as Infer.
  std::vector<FloatTensor> Encode(const InferenceRequest& request, CancelState* cancel);

  // Split mode only: audio for a latent (or a chunk of one) and the side
  // tensors Encode returned. Staged: the latent is the flow's output, and
  // `side` the boundary's last tensors (those without a frame axis); the
  // decoder is fed the ones it takes. Thread safety: as Infer.
  Ort::Value Decode(FloatTensor& latent, std::vector<FloatTensor>& side, CancelState* cancel);

  // Staged only: the flow over a window of the boundary (latent, then every
  // other boundary tensor as Encode returned them): the decoder's latent for
  // that window. Thread safety: as Infer.
  Ort::Value Flow(FloatTensor& latent, std::vector<FloatTensor>& side, CancelState* cancel);

  bool split() const { return decoder_ != nullptr; }
  bool staged() const { return flow_ != nullptr; }
  bool has_speaker_input() const { return has_sid_; }
  const std::string& split_info() const { return split_info_; }
  bool has_durations() const { return !durations_.empty(); }
  // Heap bytes the session(s) took when created (weights, pre-packed copies,
  // planning): measured, and never less than the model bytes given; see voice.cc.
  size_t memory_bytes() const { return memory_bytes_; }
  // Whether the encoder runs on a session shared with other voices.
  bool encoder_shared() const { return !fed_weights_.empty(); }
  // Whether a busy request's encoder runs on a one-thread session.
  bool has_busy_encoder() const { return encoder_busy_ != nullptr; }

 private:
  std::vector<Ort::Value> RunEncoder(const InferenceRequest& request, CancelState* cancel);
  // Runs `session` on the tensors named in `names` that are among its inputs, `taken`.
  Ort::Value RunTaking(Ort::Session& session, const std::vector<std::string>& taken,
                       const std::vector<std::string>& names, std::vector<Ort::Value>& values, const char* output,
                       CancelState* cancel);

  std::string label_;
  // Loads a shared encoder from the template and copies this voice's
  // weights; false (nothing kept) when ONNX Runtime refuses the template.
  bool LoadSharedEncoder(const ModelParts& parts, const SessionSettings& settings, int encoder_threads,
                         const Ort::SessionOptions& options);

  std::shared_ptr<Ort::Session> encoder_;  // the whole model in whole mode
  // A shared encoder's one-thread twin (same template, same fed weights),
  // when the encoder has more threads than one; see InferenceRequest::busy.
  std::shared_ptr<Ort::Session> encoder_busy_;
  std::unique_ptr<Ort::Session> decoder_;
  std::unique_ptr<Ort::Session> flow_;
  std::string flow_output_;
  // The input names of the decoder and the flow, read when they load.
  std::vector<std::string> decoder_inputs_;
  std::vector<std::string> flow_inputs_;
  std::vector<std::string> boundary_;
  std::string durations_;
  std::string split_info_;
  // A shared encoder's weights, this voice's own: fed on every encoder run,
  // each input a slice of weights_.
  struct FedWeight {
    std::string name;
    std::vector<int64_t> dims;
    size_t start = 0;  // in floats, into weights_
    size_t count = 0;
  };
  std::vector<float> weights_;
  std::vector<FedWeight> fed_weights_;
  bool has_sid_ = false;
  size_t memory_bytes_ = 0;
};

}  // namespace chorus
