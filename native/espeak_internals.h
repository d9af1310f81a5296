// What Chorus reads and sets inside espeak-ng beyond its public API, in one
// place: where each word of a clause begins in the text, read from the
// phoneme list that espeak_TextToPhonemesWithTerminator has just built, and
// whether synthesis reports phoneme events, and what a text leaves behind for
// the next. espeak-ng's public API gives word
// positions only as events of a full synthesis (espeak_Synth), which would
// make every request pay for a formant synthesis under the process-wide
// espeak mutex; the phoneme list already holds them (it is what those events
// are made from). The internals are those of the pinned espeak-ng 1.52
// source that the build verifies by checksum.
#pragma once

#include <string>
#include <vector>

namespace chorus {

struct EspeakWordStart {
  // Code points from the start of the text given to the phonemizer.
  int source_start;
  // espeak-ng's own length of the word in code points, at most 31 (the
  // field it keeps it in has five bits).
  int source_length;
};

// Forgets what the last text left in espeak-ng, so that a text reads the same
// whatever was phonemized before it. espeak_TextToPhonemes, unlike
// espeak_Synth, never starts a new text: the character read ahead at the
// end of one ("a.." keeps its second full stop) is read first in the next
// ("dot a"). This resets what espeak_Synth resets at the start of a text.
// Requires EspeakMutex(); call before the text's first clause.
void ResetEspeakTextStateLocked();

// Makes the next clause's positions count from the start of a new text.
// Requires EspeakMutex(); call before the text's first clause.
void ResetEspeakSourcePositionsLocked();

// The words that start in the clause just translated, in the order of its
// phoneme output: one per word the output separates with a space, the first
// included. Requires EspeakMutex(); call right after
// espeak_TextToPhonemesWithTerminator, before any other espeak call.
std::vector<EspeakWordStart> ClauseWordStartsLocked();

// One phoneme of the selected voice's table: the mnemonic espeak-ng reads
// inside [[ ]] with espeakPHONEMES (ASCII, "oU", "i:") and its IPA name as
// espeak_TextToPhonemes writes it ("oʊ", "iː"; empty for pauses and
// phonemes without a sound of their own).
struct EspeakPhonemeName {
  std::string mnemonic;
  std::string ipa;
};

// Every phoneme of the selected voice's phoneme table (its language's,
// with what that table inherits). Requires EspeakMutex() and a voice
// selected (SelectEspeakVoiceLocked).
std::vector<EspeakPhonemeName> EspeakPhonemeNamesLocked();

// Turns espeak_Synth's phoneme events (with IPA names) on or off; they are
// otherwise fixed by espeak_Initialize for the whole process.
// Requires EspeakMutex().
void SetEspeakPhonemeEventsLocked(bool on);

}  // namespace chorus
