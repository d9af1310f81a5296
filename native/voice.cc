#include "voice.h"

#include <array>
#include <utility>

#include "errors.h"

namespace chorus {
namespace {

const char* const kInputIds = "input";
const char* const kInputLengths = "input_lengths";
const char* const kInputScales = "scales";
const char* const kInputSpeaker = "sid";
const char* const kOutput = "output";

GraphOptimizationLevel ToOptimizationLevel(int level) {
  switch (level) {
    case 0: return ORT_DISABLE_ALL;
    case 1: return ORT_ENABLE_BASIC;
    case 2: return ORT_ENABLE_EXTENDED;
    default: return ORT_ENABLE_ALL;
  }
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

}  // namespace

Voice::Voice(const std::string& model_path, const SessionSettings& settings) : path_(model_path) {
  try {
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(settings.intra_op_threads);
    options.SetInterOpNumThreads(settings.inter_op_threads);
    options.SetGraphOptimizationLevel(ToOptimizationLevel(settings.optimization_level));
    options.SetExecutionMode(ORT_SEQUENTIAL);
    // With one thread per worker, spinning only burns the core that another
    // worker needs.
    options.AddConfigEntry("session.intra_op.allow_spinning", "0");
    session_ = std::make_unique<Ort::Session>(OrtEnvironment(), model_path.c_str(), options);
  } catch (const Ort::Exception& e) {
    throw NativeError(kErrOrt, "Cannot load model " + model_path + ": " + e.what());
  }

  Ort::AllocatorWithDefaultOptions allocator;
  bool has_ids = false, has_lengths = false, has_scales = false, has_output = false;
  for (size_t i = 0; i < session_->GetInputCount(); ++i) {
    std::string name = session_->GetInputNameAllocated(i, allocator).get();
    has_ids |= name == kInputIds;
    has_lengths |= name == kInputLengths;
    has_scales |= name == kInputScales;
    has_sid_ |= name == kInputSpeaker;
  }
  for (size_t i = 0; i < session_->GetOutputCount(); ++i) {
    has_output |= std::string(session_->GetOutputNameAllocated(i, allocator).get()) == kOutput;
  }
  if (!has_ids || !has_lengths || !has_scales || !has_output) {
    throw NativeError(kErrOrt, "Model " + model_path +
                                   " does not have Piper's signature (inputs input, input_lengths, "
                                   "scales[, sid]; output output)");
  }
}

Ort::Value Voice::Infer(const InferenceRequest& request, CancelState* cancel) {
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

  Ort::RunOptions run_options;
  RunRegistration registration(cancel, &run_options);
  std::vector<Ort::Value> outputs;
  try {
    outputs = session_->Run(run_options, names.data(), inputs.data(), inputs.size(), &kOutput, 1);
  } catch (const Ort::Exception& e) {
    if (cancel != nullptr && cancel->IsCancelled()) throw NativeError(kErrCancelled, "Synthesis was cancelled");
    throw NativeError(kErrOrt, std::string("Inference failed: ") + e.what());
  }
  if (cancel != nullptr && cancel->IsCancelled()) throw NativeError(kErrCancelled, "Synthesis was cancelled");

  Ort::Value& output = outputs.front();
  if (!output.IsTensor() ||
      output.GetTensorTypeAndShapeInfo().GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
    throw NativeError(kErrOrt, "Model output is not a float tensor");
  }
  return std::move(output);
}

}  // namespace chorus
