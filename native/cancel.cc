#include "cancel.h"

namespace chorus {

void CancelState::Cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
  // ORT's terminate flag is atomic and read by the running session between
  // (and inside some) kernels, so setting it from this thread is safe.
  for (Ort::RunOptions* options : runs_) options->SetTerminate();
}

bool CancelState::IsCancelled() {
  std::lock_guard<std::mutex> lock(mutex_);
  return cancelled_;
}

bool CancelState::Register(Ort::RunOptions* options) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cancelled_) return false;
  runs_.insert(options);
  return true;
}

void CancelState::Unregister(Ort::RunOptions* options) {
  std::lock_guard<std::mutex> lock(mutex_);
  runs_.erase(options);
}

}  // namespace chorus
