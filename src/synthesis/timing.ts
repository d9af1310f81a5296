// Timing beside audio: which words, phonemes and visemes a speech's samples
// carry. The contract shared by the speech service (which yields a
// TimingChunk per sentence before that sentence's audio when a request asks
// for `timestamps`) and the protocols that forward it (the WebSocket's
// character alignment).

/** A mouth shape; its names are the timing work's to define. */
export type Viseme = string

export interface WordTiming { word: string, textStart: number, textEnd: number, startSample: number, endSample: number }
export interface PhonemeTiming { phoneme: string, startSample: number, endSample: number }
export interface VisemeTiming { viseme: Viseme, startSample: number, endSample: number }
export type TimingKind = 'word' | 'phoneme' | 'viseme'
export interface TimingChunk { kind: 'timing', sampleRate: number, words: WordTiming[], phonemes: PhonemeTiming[], visemes: VisemeTiming[] }
