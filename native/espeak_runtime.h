// espeak-ng keeps its state in process-wide globals and is not thread-safe.
// Every espeak call in the addon (initialisation, voice selection,
// phonemization, synthesis) runs while holding EspeakMutex().
#pragma once

#include <mutex>
#include <string>

namespace chorus {

std::mutex& EspeakMutex();

// Initialises espeak-ng once per process with the data folder `data_path`
// (the espeak-ng-data folder itself, or its parent). Returns espeak's sample
// rate. A later call with the same path returns the same rate; a different
// path is an error because espeak's data path is global.
// Thread safety: any thread; takes EspeakMutex().
// Throws NativeError(kErrEspeak) naming the path on failure.
int InitializeEspeak(const std::string& data_path);

// Requires the caller to hold EspeakMutex(). Throws if espeak is not
// initialised or the voice is unknown to it.
void SelectEspeakVoiceLocked(const std::string& voice);

}  // namespace chorus
