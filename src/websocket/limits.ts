// Process-wide counts of what every socket holds: open contexts and text
// waiting to be spoken. Each socket has its own bounds too (session.ts;
// SocketAccount for the other protocols).

import { tooManyContexts, tooMuchText } from './errors.js'

export class SocketLimits {
  contexts = 0
  text = 0

  constructor (readonly maxContexts: number, readonly maxText: number) {}
}

/** One socket's share of the text and contexts, counted in the process's
 * too: what every protocol's session takes before a context holds text. */
export class SocketAccount {
  private held = 0
  private contexts = 0

  constructor (private readonly limits: SocketLimits, private readonly maxText: number, private readonly maxContexts: number) {}

  /** Counts a context about to open (429 beyond either bound). */
  openContext (): void {
    if (this.contexts >= this.maxContexts) throw tooManyContexts(this.maxContexts, 'socket')
    if (this.limits.contexts >= this.limits.maxContexts) throw tooManyContexts(this.limits.maxContexts, 'process')
    this.contexts++
    this.limits.contexts++
  }

  closeContext (): void {
    this.contexts--
    this.limits.contexts--
  }

  /** Counts text about to be held (413 beyond either bound). */
  takeText (characters: number): void {
    if (this.held + characters > this.maxText) throw tooMuchText(this.maxText, 'socket', this.held + characters)
    if (this.limits.text + characters > this.limits.maxText) throw tooMuchText(this.limits.maxText, 'process', this.limits.text + characters)
    this.held += characters
    this.limits.text += characters
  }

  releaseText (characters: number): void {
    this.held -= characters
    this.limits.text -= characters
  }
}
