// Loads ONNX Runtime at run time with dlopen, so the addon is not tied to the
// symbol versions of one ORT build: by default the CPU library inside the
// onnxruntime-node package, or any libonnxruntime.so.1 the user points to.
#pragma once

#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>
#undef ORT_API_MANUAL_INIT

#include <string>

namespace chorus {

// Loads the library at `path` once per process and initialises the ORT C++
// API with the API version of our headers. Later calls with the same path are
// no-ops; a different path after a successful load is an error.
// Thread safety: safe from any thread (serialised by a process-wide mutex).
// Throws NativeError(kErrOrtLoad) with the path and dlerror() on failure.
void LoadOrtRuntime(const std::string& path);

// The process-wide ORT environment. Requires LoadOrtRuntime to have succeeded.
// Thread safety: Ort::Env is safe to share between threads.
Ort::Env& OrtEnvironment();

// Whether LoadOrtRuntime has succeeded in this process. Thread safety: any thread.
bool OrtRuntimeLoaded();

// The version string the loaded library reports (e.g. "1.30.0").
std::string OrtVersion();

}  // namespace chorus
