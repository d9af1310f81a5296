#include "voice.h"

#include <malloc.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <utility>

#include "errors.h"
#include "graph_preoptimize.h"
#include "shared_encoder.h"

namespace chorus {
namespace {

const char* const kInputIds = "input";
const char* const kInputLengths = "input_lengths";
const char* const kInputScales = "scales";
const char* const kInputSpeaker = "sid";
const char* const kOutput = "output";

// Loads are serialised so that the heap growth measured around one is that
// load's (inference on other threads allocates from ORT's arenas, which only
// grow on a new longest input, so the figure is close but not exact).
std::mutex g_load_mutex;

}  // namespace
}  // namespace chorus

// Present when the addon runs under AddressSanitizer (npm run test:asan),
// whose allocator glibc's mallinfo2 cannot see.
extern "C" size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));

namespace chorus {
namespace {

size_t HeapInUse() {
  if (__sanitizer_get_current_allocated_bytes != nullptr) return __sanitizer_get_current_allocated_bytes();
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

GraphOptimizationLevel ToOptimizationLevel(int level) {
  switch (level) {
    case 0: return ORT_DISABLE_ALL;
    case 1: return ORT_ENABLE_BASIC;
    case 2: return ORT_ENABLE_EXTENDED;
    default: return ORT_ENABLE_ALL;
  }
}

Ort::SessionOptions MakeOptions(const SessionSettings& settings, int intra_op_threads) {
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(intra_op_threads);
  options.SetInterOpNumThreads(settings.inter_op_threads);
  options.SetGraphOptimizationLevel(ToOptimizationLevel(settings.optimization_level));
  options.SetExecutionMode(ORT_SEQUENTIAL);
  // Inputs vary in length with every sentence: memory patterns planned for
  // one length only make the arena keep more.
  options.DisableMemPattern();
  // The process-wide arena (see ort_runtime.cc).
  options.AddConfigEntry("session.use_env_allocators", "1");
  // With one thread per worker, spinning only burns the core that another
  // worker needs.
  options.AddConfigEntry("session.intra_op.allow_spinning", "0");
  return options;
}

std::unique_ptr<Ort::Session> MakeSession(const ModelBytes& bytes, const Ort::SessionOptions& options,
                                          const std::string& label, const char* part) {
  if (bytes.data == nullptr || bytes.size == 0) {
    throw NativeError(kErrOrt, "Cannot load model " + label + ": its " + part + " is empty");
  }
  try {
    return std::make_unique<Ort::Session>(OrtEnvironment(), bytes.data, bytes.size, options);
  } catch (const Ort::Exception& e) {
    throw NativeError(kErrOrt, "Cannot load model " + label + (std::string(part) == "model" ? "" : std::string(" (") + part + ")") +
                                   ": " + e.what());
  }
}

// The model's graph as ONNX Runtime optimises it, loaded as a session of its
// own (see graph_preoptimize.h); the model as it is when that cannot be had.
std::unique_ptr<Ort::Session> MakePreoptimizedSession(const ModelBytes& bytes, const Ort::SessionOptions& options,
                                                      const SessionSettings& settings, const std::string& label,
                                                      const char* part) {
  if (settings.preoptimize && settings.optimization_level > 0 && bytes.data != nullptr && bytes.size > 0) {
    std::vector<uint8_t> optimized = PreoptimizedModel(bytes, options);
    if (!optimized.empty()) {
      try {
        return MakeSession(ModelBytes{optimized.data(), optimized.size()}, options, label, part);
      } catch (const NativeError&) {
        // Loaded below as it is, which reports its own error if any.
      }
    }
  }
  return MakeSession(bytes, options, label, part);
}

std::vector<std::string> InputNames(Ort::Session& session) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> names;
  for (size_t i = 0; i < session.GetInputCount(); ++i) names.emplace_back(session.GetInputNameAllocated(i, allocator).get());
  return names;
}

std::vector<std::string> OutputNames(Ort::Session& session) {
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> names;
  for (size_t i = 0; i < session.GetOutputCount(); ++i) names.emplace_back(session.GetOutputNameAllocated(i, allocator).get());
  return names;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names) if (n == name) return true;
  return false;
}

// RAII registration of a run with a CancelState.
class RunRegistration {
 public:
  RunRegistration(CancelState* cancel, Ort::RunOptions* options) : cancel_(cancel), options_(options) {
    if (cancel_ != nullptr && !cancel_->Register(options_)) {
      throw NativeError(kErrCancelled, "Synthesis was cancelled");
    }
  }
  ~RunRegistration() {
    if (cancel_ != nullptr) cancel_->Unregister(options_);
  }
  RunRegistration(const RunRegistration&) = delete;
  RunRegistration& operator=(const RunRegistration&) = delete;

 private:
  CancelState* cancel_;
  Ort::RunOptions* options_;
};

std::vector<Ort::Value> Run(Ort::Session& session, const std::vector<const char*>& input_names,
                            std::vector<Ort::Value>& inputs, const std::vector<const char*>& output_names,
                            CancelState* cancel) {
  Ort::RunOptions run_options;
  RunRegistration registration(cancel, &run_options);
  std::vector<Ort::Value> outputs;
  try {
    outputs = session.Run(run_options, input_names.data(), inputs.data(), inputs.size(), output_names.data(),
                          output_names.size());
  } catch (const Ort::Exception& e) {
    if (cancel != nullptr && cancel->IsCancelled()) throw NativeError(kErrCancelled, "Synthesis was cancelled");
    throw NativeError(kErrOrt, std::string("Inference failed: ") + e.what());
  }
  if (cancel != nullptr && cancel->IsCancelled()) throw NativeError(kErrCancelled, "Synthesis was cancelled");
  for (auto& output : outputs) {
    if (!output.IsTensor() ||
        output.GetTensorTypeAndShapeInfo().GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      throw NativeError(kErrOrt, "Model output is not a float tensor");
    }
  }
  return outputs;
}

Ort::Value WrapTensor(FloatTensor& tensor) {
  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  return Ort::Value::CreateTensor<float>(memory, tensor.data.data(), tensor.data.size(), tensor.shape.data(),
                                         tensor.shape.size());
}

// The latent and the other boundary tensors, in order, as ORT values over their data.
std::vector<Ort::Value> WrapAll(FloatTensor& latent, std::vector<FloatTensor>& side) {
  std::vector<Ort::Value> values;
  values.push_back(WrapTensor(latent));
  for (auto& tensor : side) values.push_back(WrapTensor(tensor));
  return values;
}

// A tensor over another's data (float, as every boundary tensor is): the
// same input fed to two sessions without a copy or a move.
Ort::Value ViewOf(Ort::Value& value) {
  auto info = value.GetTensorTypeAndShapeInfo();
  std::vector<int64_t> shape = info.GetShape();
  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  return Ort::Value::CreateTensor<float>(memory, value.GetTensorMutableData<float>(), info.GetElementCount(),
                                         shape.data(), shape.size());
}

FloatTensor CopyTensor(Ort::Value& value) {
  auto info = value.GetTensorTypeAndShapeInfo();
  FloatTensor tensor;
  tensor.shape = info.GetShape();
  const float* data = value.GetTensorData<float>();
  tensor.data.assign(data, data + info.GetElementCount());
  return tensor;
}

}  // namespace

Voice::Voice(const ModelParts& parts, const SessionSettings& settings, std::string label)
    : label_(std::move(label)),
      flow_output_(parts.flow_output),
      boundary_(parts.boundary),
      durations_(parts.durations),
      split_info_(parts.split_info) {
  Ort::SessionOptions options = MakeOptions(settings, settings.intra_op_threads);
  {
    std::lock_guard<std::mutex> lock(g_load_mutex);
    size_t before = HeapInUse();
    if (parts.whole.data != nullptr) {
      encoder_ = MakePreoptimizedSession(parts.whole, options, settings, label_, "model");
    } else {
      int encoder_threads = settings.encoder_intra_op_threads > 0 ? settings.encoder_intra_op_threads : settings.intra_op_threads;
      Ort::SessionOptions encoder_options = MakeOptions(settings, encoder_threads);
      if (!LoadSharedEncoder(parts, settings, encoder_threads, encoder_options)) {
        encoder_ = MakePreoptimizedSession(parts.encoder, encoder_options, settings, label_, "encoder");
      }
      decoder_ = MakeSession(parts.decoder, options, label_, "decoder");
      if (parts.flow.data != nullptr) flow_ = MakeSession(parts.flow, options, label_, "flow");
    }
    size_t after = HeapInUse();
    // The heap is the process's: a JS buffer freed meanwhile on another
    // thread can hide part of the growth, but the sessions hold at least the
    // weights they were given.
    size_t given = parts.whole.size + (encoder_shared() ? weights_.size() * sizeof(float) : parts.encoder.size) +
                   parts.decoder.size + parts.flow.size;
    memory_bytes_ = std::max(after > before ? after - before : 0, given);
  }

  std::vector<std::string> inputs = InputNames(*encoder_);
  has_sid_ = Contains(inputs, kInputSpeaker);
  if (!Contains(inputs, kInputIds) || !Contains(inputs, kInputLengths) || !Contains(inputs, kInputScales)) {
    throw NativeError(kErrOrt, "Model " + label_ +
                                   " does not have Piper's signature (inputs input, input_lengths, scales[, sid]; "
                                   "output output)");
  }
  if (!split()) {
    if (!Contains(OutputNames(*encoder_), kOutput)) {
      throw NativeError(kErrOrt, "Model " + label_ + " does not have Piper's signature (no output named output)");
    }
    return;
  }
  if (boundary_.empty() || !Contains(OutputNames(*decoder_), kOutput)) {
    throw NativeError(kErrOrt, "Model " + label_ + ": the decoder split did not produce Piper's output");
  }
  // Read once: every run feeds each session the tensors it takes.
  decoder_inputs_ = InputNames(*decoder_);
  if (staged()) flow_inputs_ = InputNames(*flow_);
  for (const auto& name : boundary_) {
    if (!Contains(OutputNames(*encoder_), name) || !Contains(staged() ? flow_inputs_ : decoder_inputs_, name)) {
      // Staged: the flow may leave the speaker's tensors to the decoder.
      bool side_of_staged = staged() && name != boundary_.front() && Contains(decoder_inputs_, name);
      if (!side_of_staged) throw NativeError(kErrOrt, "Model " + label_ + ": the decoder split lost tensor " + name);
    }
  }
  if (staged()) {
    if (!Contains(OutputNames(*flow_), flow_output_) || !Contains(decoder_inputs_, flow_output_)) {
      throw NativeError(kErrOrt, "Model " + label_ + ": the staged split lost the flow's output " + flow_output_);
    }
    for (const auto& name : decoder_inputs_) {
      if (name != flow_output_ && !Contains(boundary_, name)) {
        throw NativeError(kErrOrt, "Model " + label_ + ": the staged decoder takes " + name + ", which the encoder does not make");
      }
    }
  }
  if (has_durations() && !Contains(OutputNames(*encoder_), durations_)) {
    throw NativeError(kErrOrt, "Model " + label_ + ": the encoder lost its durations output " + durations_);
  }
}

bool Voice::LoadSharedEncoder(const ModelParts& parts, const SessionSettings& settings, int encoder_threads,
                              const Ort::SessionOptions& options) {
  const ModelBytes& shape = parts.encoder_template;
  if (!settings.share_encoder || shape.data == nullptr || shape.size == 0 || parts.encoder_weights.empty()) return false;
  std::vector<FedWeight> fed;
  size_t total = 0;
  for (const auto& weight : parts.encoder_weights) {
    size_t count = 1;
    for (int64_t dim : weight.dims) {
      // No weight is larger than the encoder: this also keeps count from overflowing.
      if (dim < 0 || (dim > 0 && count > parts.encoder.size / static_cast<size_t>(dim))) return false;
      count *= static_cast<size_t>(dim);
    }
    if (weight.offset > parts.encoder.size || count > (parts.encoder.size - weight.offset) / sizeof(float)) return false;
    fed.push_back({weight.name, weight.dims, total, count});
    total += count;
  }
  // Voices share a session only if they would have made the same one: the
  // template's bytes themselves (~1 MB per architecture), not a hash of them.
  std::string key = std::to_string(encoder_threads) + "/" + std::to_string(settings.inter_op_threads) + "/" +
                    std::to_string(settings.optimization_level) + "/" + (settings.preoptimize ? "1" : "0") + "/" +
                    std::string(reinterpret_cast<const char*>(shape.data), shape.size);
  std::shared_ptr<Ort::Session> session;
  try {
    session = FindOrCreateSharedEncoder(key, [&] { return MakePreoptimizedSession(shape, options, settings, label_, "encoder"); });
  } catch (const NativeError&) {
    return false;  // The encoder as it is, which reports its own error if any.
  }
  std::shared_ptr<Ort::Session> busy_session;
  if (encoder_threads > 1) {
    // Cheap: the template holds no weights, and one is shared per architecture.
    std::string busy_key = "1/" + key.substr(key.find('/') + 1);
    Ort::SessionOptions busy_options = MakeOptions(settings, 1);
    try {
      busy_session = FindOrCreateSharedEncoder(busy_key, [&] { return MakePreoptimizedSession(shape, busy_options, settings, label_, "encoder"); });
    } catch (const NativeError&) {
      busy_session = nullptr;  // Busy runs then use the encoder's threads.
    }
  }
  std::vector<std::string> inputs = InputNames(*session);
  for (const auto& weight : parts.encoder_weights) {
    if (!Contains(inputs, weight.name) || weight.name == kInputIds || weight.name == kInputLengths ||
        weight.name == kInputScales || weight.name == kInputSpeaker) {
      return false;
    }
  }
  weights_.resize(total);
  for (size_t i = 0; i < fed.size(); ++i) {
    // The bytes lie anywhere in the protobuf: copied, not viewed, so they are aligned.
    std::memcpy(weights_.data() + fed[i].start, parts.encoder.data + parts.encoder_weights[i].offset,
                fed[i].count * sizeof(float));
  }
  fed_weights_ = std::move(fed);
  encoder_ = std::move(session);
  encoder_busy_ = std::move(busy_session);
  return true;
}

std::vector<Ort::Value> Voice::RunEncoder(const InferenceRequest& request, CancelState* cancel) {
  if (request.ids.empty()) throw NativeError(kErrInvalidArgument, "No phoneme ids to synthesise");
  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  // Input tensors wrap our own buffers: no copies of the ids.
  std::array<int64_t, 2> ids_shape{1, static_cast<int64_t>(request.ids.size())};
  std::array<int64_t, 1> lengths{static_cast<int64_t>(request.ids.size())};
  std::array<int64_t, 1> one{1};
  std::array<float, 3> scales{request.noise_scale, request.length_scale, request.noise_w};
  std::array<int64_t, 1> scales_shape{3};
  std::array<int64_t, 1> speaker{request.speaker_id};

  std::vector<Ort::Value> inputs;
  inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, const_cast<int64_t*>(request.ids.data()),
                                                     request.ids.size(), ids_shape.data(), ids_shape.size()));
  inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, lengths.data(), 1, one.data(), 1));
  inputs.push_back(Ort::Value::CreateTensor<float>(memory, scales.data(), 3, scales_shape.data(), 1));
  std::vector<const char*> names{kInputIds, kInputLengths, kInputScales};
  if (has_sid_) {
    inputs.push_back(Ort::Value::CreateTensor<int64_t>(memory, speaker.data(), 1, one.data(), 1));
    names.push_back(kInputSpeaker);
  }
  for (const FedWeight& weight : fed_weights_) {
    // ORT reads inputs only: the const_cast lends it the voice's weights.
    inputs.push_back(Ort::Value::CreateTensor<float>(memory, const_cast<float*>(weights_.data() + weight.start),
                                                     weight.count, weight.dims.data(), weight.dims.size()));
    names.push_back(weight.name.c_str());
  }
  std::vector<const char*> outputs;
  if (split()) {
    for (const auto& name : boundary_) outputs.push_back(name.c_str());
    // Asked for from the same run: the graph computes them anyway.
    if (has_durations()) outputs.push_back(durations_.c_str());
  } else {
    outputs.push_back(kOutput);
  }
  Ort::Session& session = request.busy && encoder_busy_ != nullptr ? *encoder_busy_ : *encoder_;
  return Run(session, names, inputs, outputs, cancel);
}

Ort::Value Voice::RunTaking(Ort::Session& session, const std::vector<std::string>& taken,
                            const std::vector<std::string>& names, std::vector<Ort::Value>& values, const char* output,
                            CancelState* cancel) {
  std::vector<const char*> input_names;
  std::vector<Ort::Value> inputs;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!Contains(taken, names[i])) continue;
    input_names.push_back(names[i].c_str());
    inputs.push_back(ViewOf(values[i]));
  }
  std::vector<const char*> outputs{output};
  return std::move(Run(session, input_names, inputs, outputs, cancel).front());
}

Ort::Value Voice::Infer(const InferenceRequest& request, CancelState* cancel) {
  std::vector<Ort::Value> encoded = RunEncoder(request, cancel);
  if (!split()) return std::move(encoded.front());
  // The decoder takes the boundary only.
  if (has_durations()) encoded.pop_back();
  if (!staged()) return RunTaking(*decoder_, decoder_inputs_, boundary_, encoded, kOutput, cancel);
  // The flow's output takes the latent's place; the speaker's tensors stay.
  std::vector<std::string> names = boundary_;
  names.front() = flow_output_;
  encoded.front() = RunTaking(*flow_, flow_inputs_, boundary_, encoded, flow_output_.c_str(), cancel);
  return RunTaking(*decoder_, decoder_inputs_, names, encoded, kOutput, cancel);
}

std::vector<FloatTensor> Voice::Encode(const InferenceRequest& request, CancelState* cancel) {
  if (!split()) throw NativeError(kErrInvalidArgument, "Model " + label_ + " runs whole: it has no encoder");
  std::vector<Ort::Value> encoded = RunEncoder(request, cancel);
  std::vector<FloatTensor> tensors;
  for (auto& value : encoded) tensors.push_back(CopyTensor(value));
  return tensors;
}

Ort::Value Voice::Decode(FloatTensor& latent, std::vector<FloatTensor>& side, CancelState* cancel) {
  if (!split()) throw NativeError(kErrInvalidArgument, "Model " + label_ + " runs whole: it has no decoder");
  if (staged() ? side.size() >= boundary_.size() : side.size() + 1 != boundary_.size()) {
    throw NativeError(kErrInvalidArgument, "The decoder of " + label_ + " takes " + std::to_string(boundary_.size()) +
                                               " tensors");
  }
  std::vector<Ort::Value> inputs = WrapAll(latent, side);
  if (!staged()) return RunTaking(*decoder_, decoder_inputs_, boundary_, inputs, kOutput, cancel);
  // The side tensors are the boundary's last ones.
  std::vector<std::string> names{flow_output_};
  names.insert(names.end(), boundary_.end() - static_cast<std::ptrdiff_t>(side.size()), boundary_.end());
  return RunTaking(*decoder_, decoder_inputs_, names, inputs, kOutput, cancel);
}

Ort::Value Voice::Flow(FloatTensor& latent, std::vector<FloatTensor>& side, CancelState* cancel) {
  if (!staged()) throw NativeError(kErrInvalidArgument, "Model " + label_ + " has no flow of its own");
  if (side.size() + 1 != boundary_.size()) {
    throw NativeError(kErrInvalidArgument, "The flow of " + label_ + " takes " + std::to_string(boundary_.size()) +
                                               " tensors");
  }
  std::vector<Ort::Value> inputs = WrapAll(latent, side);
  return RunTaking(*flow_, flow_inputs_, boundary_, inputs, flow_output_.c_str(), cancel);
}

}  // namespace chorus
