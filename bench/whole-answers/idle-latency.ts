// A whole answer's latency on the idle service: requests one after another,
// nothing else running, the median. Measured in the same run, on the same
// service, before the load it is compared with.

import { ChorusError } from '../../src/errors.js'
import type { BenchClient, Sample } from '../client.js'
import { median } from '../stats.js'
import type { WorkItem } from '../workload.js'

export interface IdleLatency {
  /** The median of `samplesMs`. */
  medianMs: number
  samplesMs: number[]
}

/** A request that must succeed: on the idle service a failure is a broken run, not a figure. */
export async function mustSynthesize (client: BenchClient, item: WorkItem): Promise<Sample> {
  const sample = await client.synthesize(item)
  if (sample.error !== undefined) {
    throw new ChorusError('ERR_BENCH_RUN', `POST /tts failed with ${sample.error} on an idle service${sample.message === undefined ? '' : `: ${sample.message}`}`)
  }
  return sample
}

/** Each item once, one after another; the median latency. */
export async function idleLatency (client: BenchClient, items: readonly WorkItem[]): Promise<IdleLatency> {
  const samplesMs: number[] = []
  for (const item of items) samplesMs.push((await mustSynthesize(client, item)).latencyMs)
  return { medianMs: median(samplesMs), samplesMs }
}
