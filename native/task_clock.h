// Wall and CPU time of the addon's async work (inference, phonemization),
// summed per kind of task over every thread of the process, for the
// service's per-stage breakdown (docs/engine.md, "Where the time goes").
// Threading: AddTaskTime and TaskTimes may be called from any thread; the
// totals are guarded by one mutex, taken once per finished task.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace chorus {

struct TaskTotals {
  std::string name;
  uint64_t count = 0;
  double wall_seconds = 0;
  // The calling thread's CPU only: ONNX Runtime's intra-op threads that
  // help a run are not in it.
  double cpu_seconds = 0;
};

void AddTaskTime(const char* name, double wall_seconds, double cpu_seconds);
std::vector<TaskTotals> TaskTimes();

// Measures one task from construction to destruction into its name's totals.
class TaskClock {
 public:
  explicit TaskClock(const char* name);
  ~TaskClock();
  TaskClock(const TaskClock&) = delete;
  TaskClock& operator=(const TaskClock&) = delete;

 private:
  const char* name_;
  double wall_start_;
  double cpu_start_;
};

// Names the calling thread (at most 15 bytes reach the kernel), so a
// per-thread CPU reading (/proc/PID/task/TID/comm) can tell threads apart.
void NameCurrentThread(const std::string& name);

}  // namespace chorus
