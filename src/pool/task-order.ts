// Task order: earlier requests first, then a request's sentences, then a
// sentence's decoder chunks. Request numbers are process-wide, so across
// voices too the oldest request is served first and finishes soonest,
// instead of every busy voice's requests sharing the cores and all finishing
// late. The schedule (schedule.ts) keeps it for whole answers among
// themselves, for ties between deadlines, and as all of TTS_SCHEDULER=fifo.

/** Where a task stands among all work: lower runs first. */
export type TaskOrder = readonly [request: number, sentence: number, chunk: number]

export function before (a: TaskOrder, b: TaskOrder): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i]
  return false
}
