// Tiny models with the shape of a Piper VITS graph, for the decoder split's
// tests: an "encoder" that embeds the phoneme ids, expands each to three
// frames and masks them (so the latent is a join of two activations, as
// `z * y_mask` is in Piper's exports), then a HiFi-GAN-like decoder of
// convolutions, two transposed convolutions (×4, ×2: 8 samples per frame)
// and tanh, conditioned on the speaker for the multi-speaker variant.
// Weights are pseudo-random from a fixed seed, so the output is noise, and
// deterministic: the same on every run and machine.

import { TensorType, type Initializer, type Node } from './onnx-writer.js'
import { encodePiperModel } from './piper-signature.js'

export const VITS_FRAMES_PER_ID = 3
export const VITS_SAMPLES_PER_FRAME = 8

const CHANNELS = 8
const HIDDEN = 16
const UPSAMPLED = 8
const VOCABULARY = 256
const SPEAKERS = 109

function random (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    // xorshift32, mapped to [-1, 1)
    state ^= state << 13; state >>>= 0
    state ^= state >>> 17
    state ^= state << 5; state >>>= 0
    return state / 2 ** 31 - 1
  }
}

function weights (name: string, dims: number[], next: () => number, scale: number): Initializer {
  const count = dims.reduce((a, b) => a * b, 1)
  const values = new Float32Array(count)
  for (let i = 0; i < count; i++) values[i] = next() * scale
  return { name, type: TensorType.FLOAT, dims, values }
}

const ints = (value: number[]) => ({ kind: 'ints' as const, value })

export function buildVitsLikeModel (options: { speakerInput: boolean, seed?: number }): Uint8Array {
  const next = random(options.seed ?? 12345)
  const initializers: Initializer[] = [
    weights('emb', [VOCABULARY, CHANNELS], next, 1),
    { name: 'repeats', type: TensorType.INT64, dims: [4], values: [1n, 1n, 1n, BigInt(VITS_FRAMES_PER_ID)] },
    { name: 'latent_shape', type: TensorType.INT64, dims: [3], values: [1n, BigInt(CHANNELS), -1n] },
    { name: 'axis3', type: TensorType.INT64, dims: [1], values: [3n] },
    { name: 'axis1', type: TensorType.INT64, dims: [1], values: [1n] },
    weights('pre_w', [HIDDEN, CHANNELS, 7], next, 0.3),
    weights('pre_b', [HIDDEN], next, 0.1),
    weights('up1_w', [HIDDEN, UPSAMPLED, 8], next, 0.3),
    weights('up1_b', [UPSAMPLED], next, 0.1),
    weights('res_w', [UPSAMPLED, UPSAMPLED, 3], next, 0.3),
    weights('up2_w', [UPSAMPLED, UPSAMPLED, 4], next, 0.3),
    weights('post_w', [1, UPSAMPLED, 7], next, 0.3)
  ]
  const nodes: Node[] = []
  if (options.speakerInput) {
    initializers.push(weights('spk_emb', [SPEAKERS, CHANNELS], next, 1), weights('cond_w', [HIDDEN, CHANNELS, 1], next, 0.3),
      { name: 'axis2', type: TensorType.INT64, dims: [1], values: [2n] })
    // g: [1, C, 1], the speaker's conditioning, with no frame axis; made
    // first, as Piper's graph does.
    nodes.push(
      { opType: 'Gather', inputs: ['spk_emb', 'sid'], outputs: ['g2'] },
      { opType: 'Unsqueeze', inputs: ['g2', 'axis2'], outputs: ['g'] }
    )
  }
  nodes.push(
    // Encoder: ids → [1, N, C] → [1, C, N] → three frames per id → masked.
    { opType: 'Gather', inputs: ['emb', 'input'], outputs: ['embedded'] },
    { opType: 'Transpose', inputs: ['embedded'], outputs: ['x'], attributes: { perm: ints([0, 2, 1]) } },
    { opType: 'Unsqueeze', inputs: ['x', 'axis3'], outputs: ['x4'] },
    { opType: 'Tile', inputs: ['x4', 'repeats'], outputs: ['tiled'] },
    { opType: 'Reshape', inputs: ['tiled', 'latent_shape'], outputs: ['z'] },
    { opType: 'Shape', inputs: ['z'], outputs: ['z_shape'] },
    { opType: 'ConstantOfShape', inputs: ['z_shape'], outputs: ['y_mask'], attributes: { value: { kind: 'tensor', value: { name: 'one', type: TensorType.FLOAT, dims: [1], values: Float32Array.of(1) } } } },
    { opType: 'Mul', inputs: ['z', 'y_mask'], outputs: ['latent'] },
    // Decoder.
    { opType: 'Conv', inputs: ['latent', 'pre_w', 'pre_b'], outputs: ['pre'], attributes: { kernel_shape: ints([7]), pads: ints([3, 3]) } }
  )
  let hidden = 'pre'
  if (options.speakerInput) {
    nodes.push(
      { opType: 'Conv', inputs: ['g', 'cond_w'], outputs: ['cond'], attributes: { kernel_shape: ints([1]) } },
      { opType: 'Add', inputs: ['pre', 'cond'], outputs: ['pre_g'] }
    )
    hidden = 'pre_g'
  }
  nodes.push(
    { opType: 'LeakyRelu', inputs: [hidden], outputs: ['act1'], attributes: { alpha: { kind: 'float', value: 0.1 } } },
    { opType: 'ConvTranspose', inputs: ['act1', 'up1_w', 'up1_b'], outputs: ['up1'], attributes: { kernel_shape: ints([8]), strides: ints([4]), pads: ints([2, 2]) } },
    { opType: 'LeakyRelu', inputs: ['up1'], outputs: ['act2'], attributes: { alpha: { kind: 'float', value: 0.1 } } },
    { opType: 'Conv', inputs: ['act2', 'res_w'], outputs: ['res'], attributes: { kernel_shape: ints([3]), dilations: ints([3]), pads: ints([3, 3]) } },
    { opType: 'Add', inputs: ['up1', 'res'], outputs: ['resid'] },
    { opType: 'ConvTranspose', inputs: ['resid', 'up2_w'], outputs: ['up2'], attributes: { kernel_shape: ints([4]), strides: ints([2]), pads: ints([1, 1]) } },
    { opType: 'Conv', inputs: ['up2', 'post_w'], outputs: ['post'], attributes: { kernel_shape: ints([7]), pads: ints([3, 3]) } },
    { opType: 'Tanh', inputs: ['post'], outputs: ['wave'] },
    { opType: 'Unsqueeze', inputs: ['wave', 'axis1'], outputs: ['output'] }
  )
  return encodePiperModel('chorus-vits-like', { nodes, initializers }, options.speakerInput)
}
