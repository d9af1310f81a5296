// What the whole-answer benchmarks send as POST /tts (non-streamed WAV):
// short answers of one corpus sentence, long ones of many, and the backlog
// probe's long answers of many short stock phrases. Deterministic for a
// seed; never a repeat within a run (the phrase cache is off anyway).

import { Corpus, Rng, STOCK_PHRASES } from '../corpus.js'
import type { WorkItem } from '../workload.js'

/** A POST /tts body for `text` in `voice`, as the harness's client sends it. */
export function wholeItem (text: string, voice: string): WorkItem {
  return { text, voice, repeated: false, body: JSON.stringify({ text, voice }) }
}

/** Short answers (one sentence each) and long ones (`long.min`–`long.max` sentences), drawn from one seed. */
export class WholeTexts {
  private readonly rng: Rng
  private readonly corpus: Corpus

  constructor (seed: number, private readonly long: { min: number, max: number }) {
    this.rng = new Rng(seed).fork(43)
    this.corpus = new Corpus(this.rng.fork(1))
  }

  short (): string {
    return this.corpus.sentence()
  }

  /** Sentences drawn one by one (a template may come again; the slots vary). */
  longText (): string {
    const count = this.rng.between(this.long.min, this.long.max)
    return Array.from({ length: count }, () => this.corpus.sentence()).join(' ')
  }
}

/**
 * The backlog probe's long answer: `count` short stock phrases ("Hello
 * there!", "One moment, please."), in turn from the `offset`-th, so each of
 * the probe's long answers differs. 250 of them are about 4,600 characters.
 */
export function stockPhraseText (count: number, offset: number): string {
  return Array.from({ length: count }, (_, i) => STOCK_PHRASES[(offset + i) % STOCK_PHRASES.length]).join(' ')
}

/** TTS_MAX_TEXT_LENGTH's default. */
const DEFAULT_MAX_TEXT_LENGTH = 5000

/** TTS_MAX_TEXT_LENGTH for a service that must take `texts`: its default unless one is longer. */
export function maxTextLengthFor (texts: readonly string[]): number {
  return Math.max(DEFAULT_MAX_TEXT_LENGTH, ...texts.map(text => text.length))
}
