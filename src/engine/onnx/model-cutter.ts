// Cuts a model file into encoder and decoder bytes on a thread of its own
// that ends when the load does. Reading the graph makes some ten thousand
// short-lived JavaScript objects; in a voice worker they survived into the
// old generation and V8 kept ~17 MB of heap per loaded medium voice
// afterwards (an idle worker sees no full collection). A thread that exits
// gives its whole heap back.

import { Worker } from 'node:worker_threads'
import type { SplitCut, SplitInfo } from './decoder-split.js'
import type { TemplateWeight } from './encoder-template.js'
import { workerStartOptions } from '../../worker-start-options.js'

const FROM_SOURCES = import.meta.url.endsWith('.ts')
const WORKER_FILE = new URL(FROM_SOURCES ? './dev-cut-worker.mjs' : './cut-worker.js', import.meta.url)

export interface CutterData {
  modelPath: string
  /** Only this cut, when set. */
  only?: SplitCut
  /** Whether to write each encoder's template (~0.15 s for a medium
   * voice): only a voice that shares its encoder loads one. */
  template: boolean
  /** Whether to write the parts' 1-D convolutions as 2-D ones (conv-lift.ts);
   * the end then carries the whole model so written, for a voice that runs whole. */
  lift: boolean
  /** Whether to compute the encoder's relative-position attention over its
   * window only (relative-attention.ts); the whole model's too. */
  band: boolean
  /** Whether to cut at all (false: only the lifted whole model is made). */
  split: boolean
}

/** One cut's parts, for the addon to load. Its reasons say why earlier
 * cuts were passed over. */
export interface CutReply {
  kind: 'cut'
  encoder: Uint8Array
  decoder: Uint8Array
  /** Staged cuts: the flow, and its output (the decoder's latent). */
  flow?: Uint8Array
  flowOutput?: string
  /** The encoder with its float weights as inputs, which lie in `encoder`
   * (encoder-template.ts); absent when it has none or was not asked for. */
  template?: Uint8Array
  weights?: TemplateWeight[]
  /** The encoder's outputs that the decoder takes, latent first. */
  boundary: string[]
  /** The encoder's output after the boundary: each phoneme id's frames. */
  durations?: string
  info: SplitInfo
  reasons: string[]
}

/** The byte arrays a cut carries: moved from the cut thread, freed once loaded. */
export function cutBytes (reply: CutReply): Uint8Array[] {
  return [reply.encoder, reply.decoder, ...(reply.flow !== undefined ? [reply.flow] : []), ...(reply.template !== undefined ? [reply.template] : [])]
}

/** No more cuts; why, for those not tried. A file that cannot be read ends
 * here too: the whole-model load that follows reports it. */
export interface EndReply {
  kind: 'end'
  reasons: string[]
  /** The whole model rewritten (convolutions lifted, attention banded), when asked for and there was anything to rewrite. */
  whole?: Uint8Array
}

export type CutterReply = CutReply | EndReply

/** The cuts of one model file, preferred first, each made when asked for,
 * so at most one pair of parts exists at a time, as when cutting in place. */
export class ModelCutter {
  private readonly worker: Worker
  private failure: Error | undefined

  constructor (data: CutterData) {
    this.worker = new Worker(WORKER_FILE, { workerData: data, ...workerStartOptions() })
    this.worker.on('error', error => { this.failure = error })
  }

  /** The next cut, or the end. A cutter that failed ends with its error as
   * the reason, so the model is loaded whole, as for a graph that cannot be cut. */
  async next (): Promise<CutterReply> {
    if (this.failure !== undefined) return this.failed()
    return await new Promise(resolve => {
      const settle = (reply: CutterReply) => {
        this.worker.off('message', settle)
        this.worker.off('exit', exited)
        resolve(reply)
      }
      const exited = () => settle(this.failed())
      this.worker.on('message', settle)
      this.worker.once('exit', exited)
      this.worker.postMessage('next')
    })
  }

  private failed (): EndReply {
    return { kind: 'end', reasons: [`the graph could not be cut: ${this.failure?.message ?? 'its thread stopped'}`] }
  }

  async close (): Promise<void> {
    await this.worker.terminate()
  }
}
