#include "task_clock.h"

#include <pthread.h>
#include <time.h>

#include <mutex>

namespace chorus {
namespace {

std::mutex g_totals_mutex;
// A handful of task kinds: a vector searched by name is enough.
std::vector<TaskTotals>& Totals() {
  static std::vector<TaskTotals> totals;
  return totals;
}

double Seconds(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace

void AddTaskTime(const char* name, double wall_seconds, double cpu_seconds) {
  std::lock_guard<std::mutex> lock(g_totals_mutex);
  for (auto& totals : Totals()) {
    if (totals.name == name) {
      totals.count++;
      totals.wall_seconds += wall_seconds;
      totals.cpu_seconds += cpu_seconds;
      return;
    }
  }
  Totals().push_back({name, 1, wall_seconds, cpu_seconds});
}

std::vector<TaskTotals> TaskTimes() {
  std::lock_guard<std::mutex> lock(g_totals_mutex);
  return Totals();
}

TaskClock::TaskClock(const char* name)
    : name_(name), wall_start_(Seconds(CLOCK_MONOTONIC)), cpu_start_(Seconds(CLOCK_THREAD_CPUTIME_ID)) {}

TaskClock::~TaskClock() {
  try {
    AddTaskTime(name_, Seconds(CLOCK_MONOTONIC) - wall_start_, Seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start_);
  } catch (...) {
    // Out of memory for a new name: the breakdown misses one task, nothing else.
  }
}

void NameCurrentThread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace chorus
