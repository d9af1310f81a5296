// What a bot is told to say: a language model's reply, arriving token by
// token at a set rate. A reply is a few sentences from the bench corpus; a
// token is a word with what follows it (real tokenizers cut finer, about 1.3
// tokens a word: the rate is in these words, so 30 of them per second is a
// model writing ~40 tokens per second). A sentence can be sent for speech
// once its last token has arrived.

import { Corpus, Rng } from '../corpus.js'

export interface ReplySentence {
  text: string
  /** When its last token arrives, in ms after the reply's first token. */
  endMs: number
}

/** A reply's sentences and when each one's end arrives, at `tokensPerSecond`. */
export function replyTimeline (text: string, tokensPerSecond: number): ReplySentence[] {
  const sentences = text.match(/[^.!?]+[.!?]+(?:\s+|$)/g) ?? [text]
  const out: ReplySentence[] = []
  let tokens = 0
  for (const raw of sentences) {
    const sentence = raw.trim()
    if (sentence === '') continue
    tokens += sentence.split(/\s+/).length
    out.push({ text: sentence, endMs: tokens / tokensPerSecond * 1000 })
  }
  return out
}

/** Replies of `min`-`max` sentences, a token rate drawn in [rateMin, rateMax], seeded per bot. */
export class ReplySource {
  private readonly rng: Rng
  private readonly corpus: Corpus

  constructor (seed: number, readonly sentences: { min: number, max: number }, readonly rate: { min: number, max: number }) {
    this.rng = new Rng(seed)
    this.corpus = new Corpus(this.rng.fork(1))
  }

  next (): ReplySentence[] {
    const rate = this.rate.min + this.rng.next() * (this.rate.max - this.rate.min)
    return replyTimeline(this.corpus.sentences(this.rng.between(this.sentences.min, this.sentences.max)), rate)
  }

  /** A pause in [0, maxMs) before the bot speaks again. */
  pause (maxMs: number): number {
    return this.rng.next() * maxMs
  }
}
