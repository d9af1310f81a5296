// Whole answers beside the streaming bots of the mixed load: closed-loop
// clients, each sending POST /tts (non-streamed WAV) when its last answer
// came, short and long in turn (even clients start short, odd ones long, so
// both are always in flight). A client whose request failed stops, as a
// bot whose reply failed does, rather than spin on refusals.

import type { BenchClient, Sample } from '../client.js'
import type { WorkItem } from '../workload.js'

export type WholeKind = 'short' | 'long'

export interface WholeSample {
  kind: WholeKind
  sample: Sample
}

export interface WholeLoad {
  clients: number
  /** The next text of a kind. */
  next: (kind: WholeKind) => WorkItem
  /** Aborted: no new request is sent; those under way finish and count. */
  stop: AbortSignal
}

export async function runWholeLoad (client: BenchClient, load: WholeLoad): Promise<WholeSample[]> {
  const samples: WholeSample[] = []
  await Promise.all(Array.from({ length: load.clients }, async (_, c) => {
    for (let kind: WholeKind = c % 2 === 0 ? 'short' : 'long'; !load.stop.aborted; kind = kind === 'short' ? 'long' : 'short') {
      const sample = await client.synthesize(load.next(kind))
      samples.push({ kind, sample })
      if (sample.error !== undefined) return
    }
  }))
  return samples
}
