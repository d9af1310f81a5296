// Closed loop: N clients, each sending its next request as soon as its last
// one has finished. Shows throughput at a given concurrency; its latencies
// are those of a server that is never offered more than it answers.

import type { Sample } from './client.js'
import { MeasureWindow, type LoopResult, type WindowSpec } from './loop.js'

export interface ClosedLoopOptions extends WindowSpec {
  concurrency: number
  send: () => Promise<Sample>
  onSample?: (sample: Sample) => void
}

export async function runClosedLoop (options: ClosedLoopOptions): Promise<LoopResult> {
  const window = new MeasureWindow(performance.now(), options)
  const client = async (): Promise<void> => {
    for (;;) {
      const admission = window.admit(performance.now())
      if (admission === 'stop') return
      const sample = await options.send()
      window.record(sample, admission)
      options.onSample?.(sample)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, client))
  return window.result()
}
