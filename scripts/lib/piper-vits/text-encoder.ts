// The text encoder (VITS's TextEncoder as Piper exports it): phoneme
// embedding × √hidden, a 6-layer transformer whose self-attention adds
// relative-position logits and values within ±window, each sublayer
// followed by the channel layer norm, then a 1×1 projection to the prior's
// mean and log-variance.

import { GraphBuilder, TO_END, int, ints } from '../graph-builder.js'
import type { VitsHyperparameters } from './hparams.js'
import { concatInts, conv, dim, layerNorm, sequenceMask, slice, transpose, unsqueeze } from './layers.js'

export interface EncodedText {
  /** The transformer's output [1, hidden, N] (the duration predictor's input). */
  hidden: string
  /** The prior's mean and log-variance, [1, inter, N] each. */
  mean: string
  logVariance: string
  /** [1, 1, N] float. */
  mask: string
}

/** A tensor's length, read from its shape at every use, as a traced export
 * does (torch records each `x.size(i)`): ONNX Runtime folds these chains
 * away when it optimises the graph, as it does the export's. */
type Length = () => string

/** The relative embeddings for offsets -(L-1)…L-1: [1, 2L-1, d], zero
 * outside the window. Padding by L on each side always covers the offsets;
 * the export pads by max(L - window - 1, 0), which slices to the same values. */
function relativeEmbeddings (b: GraphBuilder, table: string, length: Length, window: number): string {
  const padded = b.op('Pad', [table, concatInts(b, [0, length(), 0, 0, length(), 0])])
  const end = b.op('Add', [b.op('Mul', [length(), b.i64([2])]), b.i64([window])])
  return slice(b, padded, [window + 1], end, [1])
}

/** [1, h, L, 2L-1] logits by relative offset → [1, h, L, L] by absolute position. */
function relativeToAbsolute (b: GraphBuilder, x: string): string {
  const length: Length = () => dim(b, x, 2)
  const less1 = () => b.op('Sub', [length(), b.i64([1])])
  const wide = b.op('Pad', [x, b.i64([0, 0, 0, 0, 0, 0, 0, 1])])
  const flat = b.op('Reshape', [wide, concatInts(b, [dim(b, x, 0), dim(b, x, 1), b.op('Mul', [b.op('Mul', [length(), b.i64([2])]), length()])])])
  const padded = b.op('Pad', [flat, concatInts(b, [0, 0, 0, 0, 0, less1()])])
  const rows = b.op('Reshape', [padded, concatInts(b, [dim(b, x, 0), dim(b, x, 1), b.op('Add', [length(), b.i64([1])]), b.op('Add', [length(), less1()])])])
  return slice(b, rows, concatInts(b, [0, less1()]), concatInts(b, [length(), TO_END]), [2, 3])
}

/** [1, h, L, L] weights by absolute position → [1, h, L, 2L-1] by relative offset. */
function absoluteToRelative (b: GraphBuilder, x: string): string {
  const length: Length = () => dim(b, x, 2)
  const less1 = () => b.op('Sub', [length(), b.i64([1])])
  const wide = b.op('Pad', [x, concatInts(b, [0, 0, 0, 0, 0, 0, 0, less1()])])
  const flat = b.op('Reshape', [wide, concatInts(b, [dim(b, x, 0), dim(b, x, 1), b.op('Add', [b.op('Mul', [length(), length()]), b.op('Mul', [length(), less1()])])])])
  const padded = b.op('Pad', [flat, concatInts(b, [0, 0, length(), 0, 0, 0])])
  const rows = b.op('Reshape', [padded, concatInts(b, [dim(b, x, 0), dim(b, x, 1), length(), b.op('Mul', [length(), b.i64([2])])])])
  return slice(b, rows, [1], [TO_END], [3])
}

function attention (b: GraphBuilder, x: string, name: string, h: VitsHyperparameters, pairs: string): string {
  const channels = h.hidden
  const d = channels / h.heads
  const q = conv(b, x, `${name}.conv_q`, { inC: channels, outC: channels })
  const k = conv(b, x, `${name}.conv_k`, { inC: channels, outC: channels })
  const v = conv(b, x, `${name}.conv_v`, { inC: channels, outC: channels })
  const relK = b.weight(`${name}.emb_rel_k`, [1, 2 * h.window + 1, d], d ** -0.5)
  const relV = b.weight(`${name}.emb_rel_v`, [1, 2 * h.window + 1, d], d ** -0.5)
  const outW = b.weight(`${name}.conv_o.weight`, [channels, channels, 1], channels ** -0.5)
  const outB = b.weight(`${name}.conv_o.bias`, [channels], channels ** -0.5)
  return b.scope(name, () => {
    const keyLength: Length = () => dim(b, k, 2)
    const heads = (t: string) => b.op('Reshape', [t, concatInts(b, [dim(b, k, 0), h.heads, d, dim(b, t, 2)])])
    const query = transpose(b, heads(q), [0, 1, 3, 2]) // [1, h, L, d]
    const keyT = heads(k) // [1, h, d, L]
    const value = transpose(b, heads(v), [0, 1, 3, 2])
    const scaled = b.op('Div', [query, b.f32([Math.sqrt(d)], true)])
    const content = b.op('MatMul', [scaled, keyT])
    const keyOffsets = unsqueeze(b, transpose(b, relativeEmbeddings(b, relK, keyLength, h.window), [0, 2, 1]), [0])
    const position = relativeToAbsolute(b, b.op('MatMul', [scaled, keyOffsets]))
    const maskZero = b.op('Equal', [pairs, b.f32([0], true)])
    const scores = b.op('Where', [maskZero, b.f32([-1e4], true), b.op('Add', [content, position])])
    const weights = b.op('Softmax', [scores], { axis: int(-1) })
    const mixed = b.op('MatMul', [weights, value])
    const valueOffsets = unsqueeze(b, relativeEmbeddings(b, relV, keyLength, h.window), [0])
    const relative = b.op('MatMul', [absoluteToRelative(b, weights), valueOffsets])
    const joined = transpose(b, b.op('Add', [mixed, relative]), [0, 1, 3, 2])
    const merged = b.op('Reshape', [joined, concatInts(b, [dim(b, k, 0), channels, dim(b, q, 2)])])
    return b.scope('conv_o', () => b.op('Conv', [merged, outW, outB], {
      dilations: ints([1]), group: int(1), kernel_shape: ints([1]), pads: ints([0, 0]), strides: ints([1])
    }))
  })
}

/** The feed-forward sublayer: two kernel-3 convolutions, padded explicitly as VITS's FFN does. */
function feedForward (b: GraphBuilder, x: string, name: string, h: VitsHyperparameters, mask: string): string {
  const pad = (t: string) => b.scope(name, () => b.op('Pad', [b.op('Mul', [t, mask]), b.i64([0, 0, 1, 0, 0, 1])]))
  const inner = conv(b, pad(x), `${name}.conv_1`, { inC: h.hidden, outC: h.filter, kernel: 3, pad: 0 })
  const relu = b.scope(name, () => b.op('Relu', [inner]))
  const outer = conv(b, pad(relu), `${name}.conv_2`, { inC: h.filter, outC: h.hidden, kernel: 3, pad: 0 })
  return b.scope(name, () => b.op('Mul', [outer, mask]))
}

export function textEncoder (b: GraphBuilder, h: VitsHyperparameters, embeddingName: string): EncodedText {
  const table = b.weight(embeddingName, [h.vocabulary, h.hidden], h.hidden ** -0.5)
  return b.scope('enc_p', () => {
    const embedded = b.scope('emb', () => b.op('Gather', [table, 'input']))
    const x0 = transpose(b, b.op('Mul', [embedded, b.f32([Math.sqrt(h.hidden)], true)]), [0, 2, 1])
    const length = dim(b, x0, 2)
    const mask = sequenceMask(b, 'input_lengths', length)
    let x = b.op('Mul', [x0, mask])
    const pairs = b.scope('encoder', () => b.op('Mul', [unsqueeze(b, mask, [2]), unsqueeze(b, mask, [3])]))
    for (let i = 0; i < h.encoderLayers; i++) {
      const y = attention(b, x, `enc_p.encoder.attn_layers.${i}`, h, pairs)
      x = layerNorm(b, b.scope('encoder', () => b.op('Add', [x, y])), `enc_p.encoder.norm_layers_1.${i}`, h.hidden)
      const f = feedForward(b, x, `enc_p.encoder.ffn_layers.${i}`, h, mask)
      x = layerNorm(b, b.scope('encoder', () => b.op('Add', [x, f])), `enc_p.encoder.norm_layers_2.${i}`, h.hidden)
    }
    const hidden = b.scope('encoder', () => b.op('Mul', [x, mask]))
    const stats = b.op('Mul', [conv(b, hidden, 'enc_p.proj', { inC: h.hidden, outC: 2 * h.inter }), mask])
    const [mean, logVariance] = b.node('Split', [stats, b.i64([h.inter, h.inter])], { axis: int(1) }, 2)
    return { hidden, mean, logVariance, mask }
  })
}
