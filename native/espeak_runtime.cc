#include "espeak_runtime.h"

#include <espeak-ng/speak_lib.h>
#include <sys/stat.h>

#include "errors.h"

namespace chorus {
namespace {

std::string g_data_path;
int g_sample_rate = 0;
// espeak_SetVoiceByName allocates on every call and never frees it
// (heaptrack: ~1.3 KB per request), so the voice in place is not selected again.
std::string g_selected_voice;

bool IsEspeakDataDir(const std::string& dir) {
  struct stat info{};
  return stat((dir + "/phontab").c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

std::mutex& EspeakMutex() {
  static std::mutex mutex;
  return mutex;
}

int InitializeEspeak(const std::string& data_path) {
  std::lock_guard<std::mutex> lock(EspeakMutex());
  if (g_sample_rate > 0) {
    if (data_path != g_data_path) {
      throw NativeError(kErrEspeak, "espeak-ng is already initialised with data from " +
                                        g_data_path + " and cannot switch to " + data_path);
    }
    return g_sample_rate;
  }
  // espeak only prints to stderr when its data is missing, so check first and
  // say which path was tried.
  if (!IsEspeakDataDir(data_path) && !IsEspeakDataDir(data_path + "/espeak-ng-data")) {
    throw NativeError(kErrEspeak, "No espeak-ng data (phontab) in " + data_path +
                                      " (set CHORUS_ESPEAK_DATA to an espeak-ng-data folder)");
  }
  int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, data_path.c_str(),
                               espeakINITIALIZE_DONT_EXIT);
  if (rate <= 0) {
    throw NativeError(kErrEspeak, "espeak-ng failed to initialise with data from " + data_path +
                                      " (returned " + std::to_string(rate) + ")");
  }
  g_data_path = data_path;
  g_sample_rate = rate;
  return rate;
}

void SelectEspeakVoiceLocked(const std::string& voice) {
  if (g_sample_rate <= 0) throw NativeError(kErrEspeak, "espeak-ng is not initialised");
  if (voice == g_selected_voice) return;
  g_selected_voice.clear();
  if (espeak_SetVoiceByName(voice.c_str()) != EE_OK) {
    throw NativeError(kErrEspeak, "espeak-ng has no voice named \"" + voice + "\"");
  }
  g_selected_voice = voice;
}

}  // namespace chorus
