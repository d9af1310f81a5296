#include "arena_release.h"

#include <malloc.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "errors.h"
#include "ort_runtime.h"

namespace chorus {
namespace {

// Protobuf wire format, enough for the model below.
void Varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void VarintField(std::string& out, int field, uint64_t value) {
  Varint(out, static_cast<uint64_t>(field) << 3);
  Varint(out, value);
}

void BytesField(std::string& out, int field, const std::string& bytes) {
  Varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  Varint(out, bytes.size());
  out += bytes;
}

// ValueInfoProto of a float tensor of shape [1].
std::string FloatScalarInfo(const std::string& name) {
  std::string dim, shape, tensor, type, info;
  VarintField(dim, 1, 1);           // Dimension.dim_value
  BytesField(shape, 1, dim);        // TensorShapeProto.dim
  VarintField(tensor, 1, 1);        // TypeProto.Tensor.elem_type = FLOAT
  BytesField(tensor, 2, shape);     // TypeProto.Tensor.shape
  BytesField(type, 1, tensor);      // TypeProto.tensor_type
  BytesField(info, 1, name);        // ValueInfoProto.name
  BytesField(info, 2, type);        // ValueInfoProto.type
  return info;
}

// ModelProto: y = Identity(x), opset 13.
std::string IdentityModel() {
  std::string node, graph, opset, model;
  BytesField(node, 1, "x");         // NodeProto.input
  BytesField(node, 2, "y");         // NodeProto.output
  BytesField(node, 4, "Identity");  // NodeProto.op_type
  BytesField(graph, 1, node);       // GraphProto.node
  BytesField(graph, 2, "chorus-arena-release");
  BytesField(graph, 11, FloatScalarInfo("x"));
  BytesField(graph, 12, FloatScalarInfo("y"));
  VarintField(opset, 2, 13);        // OperatorSetIdProto.version (default domain)
  VarintField(model, 1, 8);         // ModelProto.ir_version
  BytesField(model, 8, opset);      // ModelProto.opset_import
  BytesField(model, 7, graph);      // ModelProto.graph
  return model;
}

std::mutex g_mutex;
// Never freed, like the environment it belongs to.
Ort::Session* g_session = nullptr;

Ort::Session& ReleaseSession() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_session == nullptr) {
    const std::string model = IdentityModel();
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(1);
    options.SetInterOpNumThreads(1);
    // The shared arena is the one to shrink (see ort_runtime.cc).
    options.AddConfigEntry("session.use_env_allocators", "1");
    g_session = new Ort::Session(OrtEnvironment(), model.data(), model.size(), options);
  }
  return *g_session;
}

}  // namespace

void ReleaseArenaMemory() {
  try {
    Ort::Session& session = ReleaseSession();
    Ort::RunOptions run_options;
    run_options.AddConfigEntry("memory.enable_memory_arena_shrinkage", "cpu:0");
    float x = 0.0f;
    const int64_t shape[1] = {1};
    Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
    Ort::Value input = Ort::Value::CreateTensor<float>(memory, &x, 1, shape, 1);
    const char* input_names[] = {"x"};
    const char* output_names[] = {"y"};
    session.Run(run_options, input_names, &input, 1, output_names, 1);
  } catch (const Ort::Exception& e) {
    throw NativeError(kErrOrt, std::string("Cannot release the arena's memory: ") + e.what());
  }
  // The arena's freed regions went back to glibc; its heaps keep them
  // unless asked.
  malloc_trim(0);
}

}  // namespace chorus
