#include "graph_preoptimize.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <string>

namespace chorus {

#if defined(__linux__)
namespace {

// Closes the descriptor on every way out.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// The file's whole contents from offset 0; empty on a read error.
std::vector<uint8_t> ReadAll(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0 || info.st_size <= 0) return {};
  std::vector<uint8_t> bytes(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n <= 0) return {};
    done += static_cast<size_t>(n);
  }
  return bytes;
}

}  // namespace

std::vector<uint8_t> PreoptimizedModel(const ModelBytes& model, const Ort::SessionOptions& options) {
  // ONNX Runtime writes an optimised model only to a path: an anonymous
  // in-memory file gives it one that needs no writable folder.
  FileDescriptor file(memfd_create("chorus-optimized-model", MFD_CLOEXEC));
  if (file.get() < 0) return {};
  std::string path = "/proc/self/fd/" + std::to_string(file.get());
  try {
    Ort::SessionOptions first = options.Clone();
    first.SetOptimizedModelFilePath(path.c_str());
    // Its layout optimisations are for this machine, which is where the
    // result runs: ONNX Runtime's warning about that is not for operators.
    first.SetLogSeverityLevel(ORT_LOGGING_LEVEL_ERROR);
    // This session only writes the graph: its pre-packed weights would be
    // thrown away.
    first.AddConfigEntry("session.disable_prepacking", "1");
    Ort::Session session(OrtEnvironment(), model.data, model.size, first);
  } catch (const Ort::Exception&) {
    return {};
  }
  return ReadAll(file.get());
}

#else

std::vector<uint8_t> PreoptimizedModel(const ModelBytes&, const Ort::SessionOptions&) { return {}; }

#endif

}  // namespace chorus
