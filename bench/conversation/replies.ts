// What a bot is told to say: a language model's reply, arriving token by
// token at a set rate. A reply is a few sentences from the bench corpus; a
// token is a word with the space that follows it (real tokenizers cut finer,
// about 1.3 tokens a word: the rate is in these words, so 30 of them per
// second is a model writing ~40 tokens per second). A sentence can be sent
// for speech once its last token has arrived.

import { Corpus, Rng } from '../corpus.js'

export interface ReplySentence {
  text: string
  /** When its last token arrives, in ms after the reply started. */
  endMs: number
}

export interface ReplyToken {
  /** A word and the space after it (none after the reply's last word). */
  text: string
  /** When it arrives, in ms after the reply started. */
  atMs: number
}

/** One reply two ways: whole sentences (what HTTP sends) and tokens (what a socket sends), on one clock. */
export interface Reply {
  sentences: ReplySentence[]
  tokens: ReplyToken[]
}

/** A reply's sentences and tokens, the n-th token arriving at n / `tokensPerSecond`. */
export function replyTimeline (text: string, tokensPerSecond: number): Reply {
  const found = (text.match(/[^.!?]+[.!?]+(?:\s+|$)/g) ?? [text]).map(s => s.trim()).filter(s => s !== '')
  const reply: Reply = { sentences: [], tokens: [] }
  const words = found.map(sentence => sentence.split(/\s+/))
  const last = words.reduce((sum, w) => sum + w.length, 0)
  found.forEach((sentence, i) => {
    for (const word of words[i]) {
      const n = reply.tokens.length + 1
      reply.tokens.push({ text: n === last ? word : `${word} `, atMs: n / tokensPerSecond * 1000 })
    }
    reply.sentences.push({ text: sentence, endMs: reply.tokens.length / tokensPerSecond * 1000 })
  })
  return reply
}

/** Replies of `min`-`max` sentences, a token rate drawn in [rateMin, rateMax], seeded per bot. */
export class ReplySource {
  private readonly rng: Rng
  private readonly corpus: Corpus

  constructor (seed: number, readonly sentences: { min: number, max: number }, readonly rate: { min: number, max: number }) {
    this.rng = new Rng(seed)
    this.corpus = new Corpus(this.rng.fork(1))
  }

  next (): Reply {
    const rate = this.rate.min + this.rng.next() * (this.rate.max - this.rate.min)
    return replyTimeline(this.corpus.sentences(this.rng.between(this.sentences.min, this.sentences.max)), rate)
  }

  /** A pause in [0, maxMs) before the bot speaks again. */
  pause (maxMs: number): number {
    return this.rng.next() * maxMs
  }
}
