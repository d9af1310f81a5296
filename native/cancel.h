// Cancellation shared between the JS thread (which cancels) and the thread
// running inference (which registers its ORT run options while it runs).
#pragma once

#include <mutex>
#include <set>

#include "ort_runtime.h"

namespace chorus {

class CancelState {
 public:
  // Sets the flag and terminates every run registered now or later.
  // Thread safety: any thread.
  void Cancel();
  bool IsCancelled();

  // Registers a run for the duration of an inference. Returns false (and
  // registers nothing) when already cancelled.
  bool Register(Ort::RunOptions* options);
  void Unregister(Ort::RunOptions* options);

 private:
  std::mutex mutex_;
  bool cancelled_ = false;
  std::set<Ort::RunOptions*> runs_;
};

}  // namespace chorus
