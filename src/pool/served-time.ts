// Least attained service between whole answers: the inference time one
// request has been served so far. The schedule (schedule.ts) gives the next
// slot among a tenant's whole answers to the request that has had the
// least, so a short request sent behind long ones finishes after a few of
// their tasks instead of after all of them, without anyone knowing an
// answer's length in advance; long ones share what is left in turn.

export class ServedTime {
  private ms = 0

  /** Milliseconds of inference served so far (slots held, summed). */
  get servedMs (): number {
    return this.ms
  }

  /** One task's slot was given back after `ms`. */
  add (ms: number): void {
    if (ms > 0 && Number.isFinite(ms)) this.ms += ms
  }
}
