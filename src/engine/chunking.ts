// Bounded work per run: how a sentence's latent is cut into decoder chunks,
// and how a sentence's phonemes are cut when they are too many for one
// encoder run. Pure functions; the pipeline that uses them is in
// src/synthesis/sentence-pipeline.ts.

import type { SplitCut } from './onnx/decoder-split.js'

/** Settings an operator can read in the README (TTS_DECODER_*, TTS_MAX_PHONEMES_PER_RUN). */
export interface ChunkingSettings {
  /** Latent frames decoded per chunk (256 samples each in Piper's voices). */
  chunkFrames: number
  /** Context decoded on each side of a chunk and then dropped; null: what
   * the voice's cut needs (decoderMarginFrames + the flow's receptive field
   * when the flow runs in the chunks). */
  marginFrames: number | null
  /** A streamed sentence's first chunk: small, so audio starts early. */
  firstChunkFrames: number
  /** Phonemes per encoder run; a longer sentence is cut at a word boundary. */
  maxPhonemes: number
  /** A streamed answer's first sentence longer than this is encoded in two
   * runs, the first ending at a word boundary at most this many phonemes in,
   * so its first audio waits for a short run only; the audio changes around
   * the cut (docs/engine.md, "What the first chunk costs"). 0 or absent: never. */
  firstRunPhonemes?: number
  /** Streamed: each chunk after the first as long as the sentence's audio
   * before it (up to chunkFrames), instead of the rest in chunkFrames. */
  growStreamChunks: boolean
  /** Growing chunks: each at most this many times the audio its listener
   * hears before it (1 or more). */
  streamChunkGrowth: number
  /** Where the service's workers cut a split voice: 'decoder' (the flow
   * runs once per sentence in the encoder run, so each chunk needs only the
   * decoder's margin) or 'flow' (the flow runs in the chunks, where the
   * graph allows: less serial work before a long sentence's chunks, twice
   * the margin on every chunk) or 'staged' (the flow runs on its own
   * between them: over a streamed sentence's first chunk only before its
   * first audio, else once over the whole sentence; each chunk then decodes
   * only the decoder's margin). */
  cut: SplitCut
}

export const DEFAULT_CHUNKING: ChunkingSettings = {
  // ~9 s of audio at 22,050 Hz: sentences up to ~18 s take one chunk per
  // worker on two workers. With 512, a 45-word sentence (~1,300 frames)
  // took four chunks on two workers, three inner boundaries with 64 frames
  // of context on each side: 30 % more decoding than the sentence. One run's
  // activations stay bounded by this size (ACTIVATION_BYTES in
  // src/service/memory-limit.ts reserves room for them).
  chunkFrames: 768,
  marginFrames: null,
  firstChunkFrames: 32,
  // ~1 min of speech at Piper's usual ~14 phonemes per second: no ordinary
  // sentence is cut (Piper never cuts one), while the encoder's attention,
  // quadratic in phonemes, stays bounded.
  maxPhonemes: 800,
  // Off: the exact audio is the default; an operator trades it for a sooner
  // start of long first sentences.
  firstRunPhonemes: 0,
  growStreamChunks: true,
  // Twice the audio before each chunk: a conversation's sentence takes about
  // half as many chunks, so the margins decoded twice cost less, and a chunk
  // is still ready in time whenever decoding runs at least twice as fast as
  // real time for its stream (docs/engine.md, "Streaming").
  streamChunkGrowth: 2,
  // A conversation's sentences stream in small chunks, and every chunk
  // decodes its margins again: the decoder's margin only leaves the cores to
  // more bots; and a long streamed sentence's first audio waits for the
  // flow over its first chunk only (docs/engine.md, "Chunked decoding").
  cut: 'staged'
}

/** Context for HiFi-GAN alone: 32 frames reproduce its one-shot decode
 * exactly (published experiments; 16 corrupt the edges). */
const DECODER_MARGIN_FRAMES = 32

/** A sentence longer than this many margins is shared by the workers even
 * when it fits in a chunk; a shorter one is decoded in one piece, since the
 * context decoded twice would cost more than it saves: 512 frames (~6 s of
 * audio at 22,050 Hz) at the flow cut's 64-frame margin, 256 at the decoder
 * cut's 32. */
export const SPREAD_MARGINS = 8

/** The larger of the two cuts' margins: what planChunks assumes when it is not told the margin. */
const FLOW_CUT_MARGIN_FRAMES = 64

/** The margin for a cut whose chunks run `contextFrames` of frame-rate
 * layers (the flow) before the decoder, unless the operator set one. */
export function marginFor (settings: ChunkingSettings, contextFrames: number): number {
  return settings.marginFrames ?? contextFrames + DECODER_MARGIN_FRAMES
}

export interface FrameRange {
  start: number
  end: number
}

/** The chunks [start, end) of a latent of `frames` frames.
 * Non-streamed: one piece when it fits in a chunk and is no longer than
 * SPREAD_MARGINS margins (or runs on one worker); otherwise equal chunks,
 * none longer than chunkFrames, as many as a multiple of `parallelism`: the
 * workers then finish together (3 chunks on 2 workers would take two rounds
 * of the longest chunk, 4 take two rounds of shorter ones).
 * Streamed: a small first chunk, then growing ones (growStreamChunks) or
 * equal ones of at most chunkFrames. `leadFrames` (growing chunks only) is
 * the audio its listener still has to hear before the sentence's first
 * sample, in frames: a sentence heard after others needs no small start.
 * `marginFrames` is the voice's margin (the flow cut's 64 when not given). */
export function planChunks (frames: number, settings: ChunkingSettings, options: { stream: boolean, parallelism: number, marginFrames?: number, leadFrames?: number }): FrameRange[] {
  if (frames <= 0) return []
  const parallelism = options.stream ? 1 : Math.max(1, Math.floor(options.parallelism))
  const ranges: FrameRange[] = []
  let start = 0
  if (options.stream && frames > settings.firstChunkFrames) {
    if (settings.growStreamChunks) {
      const lead = Math.max(0, Math.floor(options.leadFrames ?? 0))
      return growingChunks(frames, settings, lead)
    }
    ranges.push({ start: 0, end: settings.firstChunkFrames })
    start = settings.firstChunkFrames
  } else if (frames <= settings.chunkFrames && (parallelism === 1 || frames <= SPREAD_MARGINS * (options.marginFrames ?? FLOW_CUT_MARGIN_FRAMES))) {
    return [{ start: 0, end: frames }]
  }
  const rest = frames - start
  const needed = Math.ceil(rest / settings.chunkFrames)
  const count = Math.ceil(needed / parallelism) * parallelism
  const size = Math.ceil(rest / count)
  for (let s = start; s < frames; s += size) ranges.push({ start: s, end: Math.min(frames, s + size) })
  return ranges
}

/**
 * A streamed sentence's chunks: each at most `streamChunkGrowth` times the
 * audio its listener hears before it (`lead`, the audio still to play before
 * the sentence, plus the sentence's own audio before the chunk), at least
 * firstChunkFrames and at most chunkFrames: so 32, 64, 192, 576 … frames for
 * a sentence due now at the default growth of 2 (32, 32, 64, 128 … at 1). A
 * chunk is then ready before the listener reaches its start whenever its
 * stream decodes at least `growth` times as fast as real time; one large rest
 * (the whole sentence after 32 frames) made the listener wait inside the
 * sentence. Growing geometrically keeps the chunks few, so the context decoded
 * twice at their edges stays small, and a sentence heard seconds from now
 * starts with a large chunk, or is decoded whole. A last piece shorter than
 * the first chunk joins the one before it when the two fit in chunkFrames
 * (the bound on one run's activations).
 */
function growingChunks (frames: number, settings: ChunkingSettings, lead: number): FrameRange[] {
  const growth = Math.max(1, settings.streamChunkGrowth)
  const first = Math.min(settings.chunkFrames, Math.max(settings.firstChunkFrames, Math.floor(growth * lead)))
  // A sentence heard later that its first chunk (nearly) covers is decoded whole.
  if (lead > 0 && frames - first < settings.firstChunkFrames && frames <= settings.chunkFrames) return [{ start: 0, end: frames }]
  const ranges: FrameRange[] = [{ start: 0, end: Math.min(frames, first) }]
  let start = ranges[0].end
  while (start < frames) {
    let end = Math.min(frames, start + Math.min(settings.chunkFrames, Math.max(settings.firstChunkFrames, Math.floor(growth * (lead + start)))))
    if (frames - end < settings.firstChunkFrames && frames - start <= settings.chunkFrames) end = frames
    ranges.push({ start, end })
    start = end
  }
  return ranges
}

/** Staged voices: whether a sentence's flow runs window by window (its first
 * chunk's window before the first audio, each later chunk's with that chunk)
 * rather than once over the whole sentence. Windows cost the flow's context
 * again at every chunk boundary (~128 frames of flow each), so only a stream
 * in several chunks whose first audio is due before the whole flow would be
 * done takes them, and only while no other work waits for a slot (the
 * windows' extra work would delay it); `flowEstimateMs` is Infinity while
 * the flow's speed is not known yet. */
export function windowedFlow (sentence: { stream: boolean, chunks: number, leadMs: number, flowEstimateMs: number, contended: boolean }): boolean {
  return sentence.stream && sentence.chunks > 1 && !sentence.contended && sentence.leadMs < sentence.flowEstimateMs
}

/** The frames actually decoded for a chunk: the chunk plus its margins,
 * clipped to the latent. */
export function withMargin (range: FrameRange, frames: number, marginFrames: number): FrameRange {
  return { start: Math.max(0, range.start - marginFrames), end: Math.min(frames, range.end + marginFrames) }
}

/** Copies frames [start, end) of a [1, channels, frames] tensor (row-major,
 * channel by channel) into a new [1, channels, end - start] array. */
export function sliceLatent (latent: Float32Array, channels: number, frames: number, range: FrameRange): Float32Array {
  const width = range.end - range.start
  const out = new Float32Array(channels * width)
  for (let c = 0; c < channels; c++) {
    out.set(latent.subarray(c * frames + range.start, c * frames + range.end), c * width)
  }
  return out
}

/** Staged voices: in how many windows at once a whole flow runs (each on a
 * thread of the libuv pool). A second window repeats the flow's context, so
 * it only takes a core that would otherwise stay idle: the encoder was not
 * busy (other runs did not hold the cores) and no work waits for a slot. */
export function flowParts (sentence: { busy: boolean, contended: boolean, encoderThreads: number }): number {
  return sentence.busy || sentence.contended ? 1 : Math.max(1, sentence.encoderThreads)
}

/** Cuts a sentence's phoneme codepoints into runs of at most `max`, each cut
 * after the last space (a word boundary) before the limit, or at the limit
 * when a single word is longer. */
export function capPhonemes (phonemes: Uint32Array, max: number): Uint32Array[] {
  if (phonemes.length <= max) return [phonemes]
  const pieces: Uint32Array[] = []
  let start = 0
  while (phonemes.length - start > max) {
    let cut = start + max
    for (let i = start + max - 1; i > start; i--) {
      if (phonemes[i] === SPACE) { cut = i + 1; break }
    }
    pieces.push(phonemes.subarray(start, cut))
    start = cut
  }
  pieces.push(phonemes.subarray(start))
  return pieces
}

/** Punctuation after which a first run would rather end (a pause is there already). */
const CLAUSE_ENDS = new Set([',', ';', ':'].map(c => c.codePointAt(0) as number))
const SPACE = 0x20

/** The end of a first run of at most `limit` phonemes: after a clause's
 * punctuation in its second half, else after its last word; 0 when no word
 * ends within it. */
function firstRunEnd (phonemes: Uint32Array, limit: number): number {
  let word = 0
  for (let i = Math.min(limit, phonemes.length - 1); i > 0; i--) {
    if (phonemes[i] !== SPACE) continue
    if (CLAUSE_ENDS.has(phonemes[i - 1]) && 2 * i >= limit) return i + 1
    if (word === 0) word = i + 1
  }
  return word
}

/** A sentence's encoder runs: pieces of at most `maxPhonemes` (capPhonemes);
 * when its first audio is due now and `firstRunPhonemes` is set, the first
 * piece ends at a word boundary within that many phonemes. */
export function encoderRuns (phonemes: Uint32Array, settings: ChunkingSettings, firstAudioDue: boolean): Uint32Array[] {
  const limit = settings.firstRunPhonemes ?? 0
  const end = firstAudioDue && limit > 0 && phonemes.length > limit ? firstRunEnd(phonemes, limit) : 0
  if (end === 0) return capPhonemes(phonemes, settings.maxPhonemes)
  return [phonemes.subarray(0, end), ...capPhonemes(phonemes.subarray(end), settings.maxPhonemes)]
}
