// The bytes of tool results the server holds until their answer is written.
// A batch's results wait for its slowest call, and each is then written
// twice in the answer (as text for every client, structured for newer
// ones), escaped once more: left alone, 32 answers of a few megabytes in each
// of several batches make gigabytes. So every answer (an HTTP POST, a line
// on stdio) takes its results' bytes from one budget for the whole server
// and gives them back once it is written; a result that would pass the
// budget is replaced by a short refusal telling the agent to ask again.
// Nothing waits for room, so no batch can hold another's up.

export class AnswerBudget {
  #held = 0

  /** `limit`: CHORUS_TOOLS_MAX_ANSWER_BYTES. */
  constructor (readonly limit: number) {}

  /** Bytes of results held now, every answer together. */
  get held (): number {
    return this.#held
  }

  /** A hold for one answer: release it once the answer was written (or its client left). */
  hold (): AnswerHold {
    return new AnswerHold(this, (bytes) => {
      if (this.#held + bytes > this.limit) return false
      this.#held += bytes
      return true
    }, (bytes) => { this.#held -= bytes })
  }
}

export class AnswerHold {
  #bytes = 0

  constructor (readonly budget: AnswerBudget, private readonly reserve: (bytes: number) => boolean, private readonly free: (bytes: number) => void) {}

  /** Takes `bytes` for one result; false when they would pass the budget. */
  take (bytes: number): boolean {
    if (!this.reserve(bytes)) return false
    this.#bytes += bytes
    return true
  }

  /** Gives back everything this answer took; later calls give back nothing more. */
  release (): void {
    this.free(this.#bytes)
    this.#bytes = 0
  }
}
