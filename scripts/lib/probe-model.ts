// "Probe" models: tiny ONNX models with Piper's exact signature whose output
// spells out their inputs, so tests can check that ids, scales and speaker id
// arrive unchanged and that the output length follows from the input.
//
// Output samples, all divided by MARKER so the first one is the peak (1.0),
// which survives Piper's peak normalisation to 16-bit PCM:
//   [MARKER, id_1 … id_N, N, noise_scale·SCALE, length_scale·SCALE,
//    noise_w·SCALE (, sid)]
// so T = N + 5, or N + 6 with a `sid` input.

import { encodeModel, TensorType, type Graph, type Node } from './onnx-writer.js'
import { encodePiperModel } from './piper-signature.js'

export const MARKER = 1000
export const SCALE = 100

export interface ProbeOptions {
  /** Adds the `sid` input of multi-speaker Piper voices. */
  speakerInput: boolean
  /** Adds this many 512×512 matrix products per run, to make the model slow. */
  slowMatmuls?: number
}

export interface ProbeReading {
  ids: number[]
  length: number
  noiseScale: number
  lengthScale: number
  noiseW: number
  speakerId?: number
}

const SLOW_SIZE = 512

export function probeLength (idCount: number, speakerInput: boolean): number {
  return idCount + (speakerInput ? 6 : 5)
}

function identity (size: number): Float32Array {
  const m = new Float32Array(size * size)
  for (let i = 0; i < size; i++) m[i * size + i] = 1
  return m
}

/** A chain of matrix products whose result is multiplied by zero and added
 * to the output: costs time, changes nothing. It depends on `scales`, so the
 * runtime cannot fold it away at load time. */
function slowChain (count: number): { nodes: Node[], result: string } {
  const nodes: Node[] = [
    { opType: 'ReduceSum', inputs: ['scales'], outputs: ['slow_seed'], attributes: { keepdims: { kind: 'int', value: 1 } } },
    { opType: 'Mul', inputs: ['slow_identity', 'slow_seed'], outputs: ['slow_0'] }
  ]
  for (let i = 1; i <= count; i++) {
    nodes.push({ opType: 'MatMul', inputs: [`slow_${i - 1}`, 'slow_identity'], outputs: [`slow_${i}`] })
  }
  nodes.push(
    { opType: 'ReduceSum', inputs: [`slow_${count}`], outputs: ['slow_sum'], attributes: { keepdims: { kind: 'int', value: 0 } } },
    { opType: 'Mul', inputs: ['slow_sum', 'zero'], outputs: ['slow_zero'] }
  )
  return { nodes, result: 'slow_zero' }
}

export function buildProbeModel (options: ProbeOptions): Uint8Array {
  const floatScalar = (name: string, value: number) => ({
    name, type: TensorType.FLOAT, dims: [1, 1], values: Float32Array.of(value)
  })
  const nodes: Node[] = [
    { opType: 'Cast', inputs: ['input'], outputs: ['ids_f'], attributes: { to: { kind: 'int', value: TensorType.FLOAT } } },
    { opType: 'Cast', inputs: ['input_lengths'], outputs: ['len_f1'], attributes: { to: { kind: 'int', value: TensorType.FLOAT } } },
    { opType: 'Unsqueeze', inputs: ['len_f1', 'axis0'], outputs: ['len_f'] },
    { opType: 'Mul', inputs: ['scales', 'scale_factor'], outputs: ['scales_x'] },
    { opType: 'Unsqueeze', inputs: ['scales_x', 'axis0'], outputs: ['scales_f'] }
  ]
  const parts = ['marker', 'ids_f', 'len_f', 'scales_f']
  if (options.speakerInput) {
    nodes.push(
      { opType: 'Cast', inputs: ['sid'], outputs: ['sid_f1'], attributes: { to: { kind: 'int', value: TensorType.FLOAT } } },
      { opType: 'Unsqueeze', inputs: ['sid_f1', 'axis0'], outputs: ['sid_f'] }
    )
    parts.push('sid_f')
  }
  nodes.push(
    { opType: 'Concat', inputs: parts, outputs: ['joined'], attributes: { axis: { kind: 'int', value: 1 } } },
    { opType: 'Div', inputs: ['joined', 'marker'], outputs: ['normalised'] }
  )
  let last = 'normalised'
  const initializers = [
    floatScalar('marker', MARKER),
    { name: 'scale_factor', type: TensorType.FLOAT, dims: [1], values: Float32Array.of(SCALE) },
    { name: 'axis0', type: TensorType.INT64, dims: [1], values: [0n] },
    { name: 'out_shape', type: TensorType.INT64, dims: [4], values: [1n, 1n, 1n, -1n] }
  ] as Graph['initializers']
  if (options.slowMatmuls !== undefined && options.slowMatmuls > 0) {
    const chain = slowChain(options.slowMatmuls)
    nodes.push(...chain.nodes, { opType: 'Add', inputs: [last, chain.result], outputs: ['slowed'] })
    last = 'slowed'
    initializers.push(
      { name: 'slow_identity', type: TensorType.FLOAT, dims: [SLOW_SIZE, SLOW_SIZE], values: identity(SLOW_SIZE) },
      { name: 'zero', type: TensorType.FLOAT, dims: [], values: Float32Array.of(0) }
    )
  }
  nodes.push({ opType: 'Reshape', inputs: [last, 'out_shape'], outputs: ['output'] })

  return encodePiperModel('chorus-probe', { nodes, initializers }, options.speakerInput)
}

/** A model without Piper's signature, for load-error tests. */
export function buildForeignModel (): Uint8Array {
  return encodeModel({
    name: 'not-piper',
    nodes: [{ opType: 'Identity', inputs: ['x'], outputs: ['y'] }],
    initializers: [],
    inputs: [{ name: 'x', type: TensorType.FLOAT, shape: [1] }],
    outputs: [{ name: 'y', type: TensorType.FLOAT, shape: [1] }]
  }, 15, 'chorus make-test-voices')
}

/** Reads a probe model's raw float output. */
export function readProbeOutput (samples: ArrayLike<number>, speakerInput: boolean): ProbeReading {
  const values = Array.from(samples, v => v * MARKER)
  const tail = speakerInput ? 5 : 4
  const ids = values.slice(1, values.length - tail).map(Math.round)
  const [length, noise, lengthScale, noiseW, sid] = values.slice(values.length - tail)
  return {
    ids,
    length: Math.round(length),
    noiseScale: noise / SCALE,
    lengthScale: lengthScale / SCALE,
    noiseW: noiseW / SCALE,
    ...(speakerInput ? { speakerId: Math.round(sid) } : {})
  }
}
