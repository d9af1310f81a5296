// The process-wide table of loaded models, so that every worker thread that
// holds a voice holds the same weights: the first load of a key creates the
// sessions, later ones get the same Voice. An entry lives while any thread
// holds it; ORT sessions are safe to run from several threads at once.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "voice.h"

namespace chorus {

// The live Voice for `key`, or null. Thread safety: any thread.
std::shared_ptr<Voice> FindVoice(const std::string& key);

// The live Voice for `key`, creating it with `make` when there is none.
// Creations are serialised (see voice.cc), and the table is checked again
// once it is this call's turn, so racing loads of one key create it once.
// Thread safety: any thread.
std::shared_ptr<Voice> FindOrCreateVoice(const std::string& key, const std::function<std::shared_ptr<Voice>()>& make);

// Returns freed heap memory to the operating system (glibc keeps it
// otherwise). Call after a voice is dropped. Thread safety: any thread.
void TrimMemory();

// Claims on loads in progress, so that the workers of one voice, starting
// together, read and cut the model file once: the first claims the key and
// loads it; the others wait for the result (see src/engine/voice.ts). A claim
// belongs to an owner (an addon environment, i.e. a thread), and a thread
// that stops drops its claims, so a waiter is never left waiting on a dead
// thread. Thread safety: any thread.

// True if `owner` now holds the claim on `key`: there is no live Voice for
// the key and nobody else holds a claim. False otherwise.
bool ClaimLoad(const std::string& key, const void* owner);

// Drops `owner`'s claim on `key` (no-op if it holds none).
void ReleaseClaim(const std::string& key, const void* owner);

// Drops every claim `owner` holds.
void ReleaseClaimsOf(const void* owner);

}  // namespace chorus
