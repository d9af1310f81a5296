// What audio costs on this machine, as measured: inference milliseconds per
// second of audio made, over the recent tasks of every voice (each voice
// pool tells it every task's time and the audio it returned). A sentence's
// encoder run that returns no samples yet still counts its time; its
// decoder chunks bring the audio. Sums decay, so the figure follows the
// load the machine is under now (another process on the cores makes audio dearer).

/** Each new task keeps this much of the sums before it. */
const DECAY = 0.98
/** No figure before this much audio (in the decaying sum): a few first
 * tasks, or a voice that makes next to no audio (the tests' probe voices),
 * say nothing of what the slots can keep fed. */
const MIN_AUDIO_MS = 10_000

export class CostMeter {
  private inferenceMs = 0
  private audioMs = 0

  /** One task: `inferenceMs` on one slot, `audioSeconds` of audio returned (0 for a latent). */
  observe (inferenceMs: number, audioSeconds: number): void {
    if (!(inferenceMs >= 0) || !(audioSeconds >= 0) || !Number.isFinite(inferenceMs + audioSeconds)) return
    this.inferenceMs = this.inferenceMs * DECAY + inferenceMs
    this.audioMs = this.audioMs * DECAY + audioSeconds * 1000
  }

  /** Audio seconds `slots` make per second of wall time; undefined before
   * MIN_AUDIO_MS of audio was measured. */
  capacity (slots: number): number | undefined {
    if (this.audioMs < MIN_AUDIO_MS || this.inferenceMs <= 0) return undefined
    return slots * this.audioMs / this.inferenceMs
  }
}
