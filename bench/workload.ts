// What the harness sends: texts (built-in corpus or a file), a voice mix,
// synthesis parameters, streaming, and how often a phrase is repeated.
// Deterministic for a seed and a stream number (one stream per load level),
// so two runs, or the ceiling and the sweep, see the same texts.

import { Corpus, Rng, STOCK_PHRASES } from './corpus.js'

export interface VoiceWeight {
  name: string
  weight: number
}

/** The optional /tts fields, in the harness's own (camelCase) names. */
export interface SynthesisParams {
  speaker?: number | string
  lengthScale?: number
  noiseScale?: number
  noiseW?: number
  sentenceSilence?: number
}

export type TextSource = { kind: 'corpus' } | { kind: 'file', path: string, lines: readonly string[] }

export interface WorkloadSpec {
  texts: TextSource
  seed: number
  voices: readonly VoiceWeight[]
  /** Voices with several speakers: only these are sent `speaker`. */
  multiSpeaker: ReadonlySet<string>
  synthesis: SynthesisParams
  stream: boolean
  /** Share of requests, 0 to 1, that repeat a stock phrase. */
  repeatRatio: number
  /** Voices in turn instead of drawn by weight (the many-voices workload). */
  roundRobin?: boolean
}

export interface WorkItem {
  text: string
  voice: string
  /** A stock phrase: the phrase cache may answer it. */
  repeated: boolean
  /** The POST /tts body. */
  body: string
}

// Tries to draw a text not sent before; the corpus has millions of texts, so
// giving up (and sending a repeat) only happens with tiny custom corpora.
const UNIQUE_TRIES = 50

export class Workload {
  private readonly textRng: Rng
  private readonly voiceRng: Rng
  private readonly repeatRng: Rng
  private readonly corpus: Corpus
  private readonly order: number[]
  private readonly stock: readonly string[]
  private readonly totalWeight: number
  private position = 0
  private turn = 0

  /**
   * `seen` is shared by every stream of a run: a text sent at one load level
   * is not sent again at the next, where a phrase cache would answer it.
   */
  constructor (private readonly spec: WorkloadSpec, stream = 0, private readonly seen = new Set<string>()) {
    if (spec.voices.length === 0) throw new Error('A workload needs at least one voice')
    const root = new Rng(spec.seed).fork(stream)
    this.textRng = root.fork(1)
    this.voiceRng = root.fork(2)
    this.repeatRng = root.fork(3)
    this.corpus = new Corpus(this.textRng)
    this.totalWeight = spec.voices.reduce((sum, voice) => sum + voice.weight, 0)
    if (spec.texts.kind === 'file') {
      this.order = shuffled(spec.texts.lines.length, this.textRng)
      this.stock = spec.texts.lines.slice(0, STOCK_PHRASES.length)
    } else {
      this.order = []
      this.stock = STOCK_PHRASES
    }
  }

  next (): WorkItem {
    const repeated = this.spec.repeatRatio > 0 && this.repeatRng.next() < this.spec.repeatRatio
    const text = repeated ? this.repeatRng.pick(this.stock) : this.freshText()
    const voice = this.pickVoice()
    return { text, voice, repeated, body: requestBody(text, voice, this.spec) }
  }

  take (count: number): WorkItem[] {
    return Array.from({ length: count }, () => this.next())
  }

  private freshText (): string {
    const texts = this.spec.texts
    if (texts.kind === 'file') {
      // A file's texts are the user's choice: they cycle, repeats included.
      const text = texts.lines[this.order[this.position % this.order.length]]
      this.position++
      return text
    }
    let text = this.corpus.utterance().text
    for (let attempt = 1; attempt < UNIQUE_TRIES && this.seen.has(text); attempt++) text = this.corpus.utterance().text
    this.seen.add(text)
    return text
  }

  private pickVoice (): string {
    const voices = this.spec.voices
    if (voices.length === 1) return voices[0].name
    if (this.spec.roundRobin === true) return voices[this.turn++ % voices.length].name
    let roll = this.voiceRng.next() * this.totalWeight
    for (const voice of voices) {
      roll -= voice.weight
      if (roll < 0) return voice.name
    }
    return voices[voices.length - 1].name
  }
}

/** The JSON body for POST /tts with the wire (snake_case) field names. */
export function requestBody (text: string, voice: string, spec: Pick<WorkloadSpec, 'synthesis' | 'stream' | 'multiSpeaker'>): string {
  const s = spec.synthesis
  return JSON.stringify({
    text,
    voice,
    speaker: spec.multiSpeaker.has(voice) ? s.speaker : undefined,
    length_scale: s.lengthScale,
    noise_scale: s.noiseScale,
    noise_w: s.noiseW,
    sentence_silence: s.sentenceSilence,
    stream: spec.stream ? true : undefined
  })
}

function shuffled (length: number, rng: Rng): number[] {
  const order = Array.from({ length }, (_, i) => i)
  for (let i = length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  return order
}
