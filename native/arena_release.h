// Gives the process-wide ONNX Runtime arena's free memory back to the
// operating system. The arena (see ort_runtime.cc) keeps every block it ever
// grew by, and with sentences of every length it keeps growing; ONNX Runtime
// only shrinks an arena at the end of a Run that asks for it, so this runs a
// one-node model with that request, then returns glibc's freed pages. When
// the service calls it, and why not after every run: docs/memory.md,
// "ONNX Runtime's arena".
#pragma once

namespace chorus {

// Frees the arena's unused regions (blocks of runs in flight stay) and trims
// glibc's heaps. Requires ONNX Runtime to be loaded. Takes a few
// milliseconds. Thread safety: any thread.
// Throws NativeError(kErrOrt) if ONNX Runtime refuses, std::bad_alloc when
// out of memory; its only caller, ReleaseMemoryWorker (voice_binding.cc),
// runs it inside PromiseWorker, which catches everything.
void ReleaseArenaMemory();

}  // namespace chorus
