// VITS's stochastic duration predictor, run in reverse as at inference:
// noise × noise_w goes back through its flows (flips, three ConvFlows with
// rational-quadratic splines, the elementwise affine) conditioned on the
// text, and the first channel is the log-duration of each phoneme.

import { GraphBuilder, int, ints } from '../graph-builder.js'
import type { VitsHyperparameters } from './hparams.js'
import { concatInts, conv, dim, flipChannels, gelu, layerNorm, slice } from './layers.js'
import { inverseSpline } from './spline.js'

const DDS_LAYERS = 3
const DDS_KERNEL = 3
const TAIL_BOUND = 5

/** Dilated depth-separable convolutions (DDSConv), each followed by norm, GELU, 1×1, norm, GELU. */
function ddsConv (b: GraphBuilder, x0: string, name: string, channels: number, mask: string, g?: string): string {
  let x = g === undefined ? x0 : b.scope(name, () => b.op('Add', [x0, g]))
  for (let i = 0; i < DDS_LAYERS; i++) {
    const dilation = DDS_KERNEL ** i
    const masked = b.scope(name, () => b.op('Mul', [x, mask]))
    let y = conv(b, masked, `${name}.convs_sep.${i}`, { inC: channels, outC: channels, kernel: DDS_KERNEL, dilation, group: channels })
    y = gelu(b, layerNorm(b, y, `${name}.norms_1.${i}`, channels))
    y = conv(b, y, `${name}.convs_1x1.${i}`, { inC: channels, outC: channels })
    y = gelu(b, layerNorm(b, y, `${name}.norms_2.${i}`, channels))
    x = b.scope(name, () => b.op('Add', [x, y]))
  }
  return b.scope(name, () => b.op('Mul', [x, mask]))
}

/** A ConvFlow in reverse: the second channel through the inverse spline that the first one parameterises. */
function convFlow (b: GraphBuilder, z: string, name: string, h: VitsHyperparameters, mask: string, condition: string): string {
  const channels = h.hidden
  const bins = h.splineBins
  const [x0, x1] = b.scope(name, () => b.node('Split', [z, b.i64([1, 1])], { axis: int(1) }, 2))
  const pre = conv(b, x0, `${name}.pre`, { inC: 1, outC: channels })
  const hidden = ddsConv(b, pre, `${name}.convs`, channels, mask, condition)
  // The projection is zero at VITS's init (the flow starts as identity);
  // small random weights keep it close to identity but not exactly.
  const params = b.scope(name, () => b.op('Mul', [conv(b, hidden, `${name}.proj`, { inC: channels, outC: 3 * bins - 1, gain: 0.1 }), mask]))
  return b.scope(name, () => {
    const perBin = b.op('Transpose', [b.op('Reshape', [params, concatInts(b, [dim(b, x0, 0), dim(b, x0, 1), -1, dim(b, x0, 2)])])], { perm: ints([0, 1, 3, 2]) })
    const norm = b.f32([Math.sqrt(channels)], true)
    const widths = b.op('Div', [slice(b, perBin, [0], [bins], [3]), norm])
    const heights = b.op('Div', [slice(b, perBin, [bins], [2 * bins], [3]), norm])
    const derivatives = slice(b, perBin, [2 * bins], [3 * bins - 1], [3])
    const y1 = inverseSpline(b, x1, { widths, heights, derivatives, bins, bound: TAIL_BOUND })
    return b.op('Mul', [b.op('Concat', [x0, y1], { axis: int(1) }), mask])
  })
}

/** Log-durations [1, 1, N] from the encoder's hidden state. `shift` is the
 * elementwise affine's mean for the first channel: it sets how long a
 * phoneme lasts on average (untrained weights have no opinion). */
export function durationPredictor (b: GraphBuilder, h: VitsHyperparameters, p: {
  hidden: string, mask: string, noiseW: string, g?: string, shift: number
}): string {
  const channels = h.hidden
  let x = conv(b, p.hidden, 'dp.pre', { inC: channels, outC: channels })
  if (p.g !== undefined) {
    const cond = conv(b, p.g, 'dp.cond', { inC: h.gin, outC: channels })
    x = b.scope('dp', () => b.op('Add', [x, cond]))
  }
  x = ddsConv(b, x, 'dp.convs', channels, p.mask)
  const condition = b.scope('dp', () => b.op('Mul', [conv(b, x, 'dp.proj', { inC: channels, outC: channels }), p.mask]))
  const mean = b.fixed('dp.flows.0.m', [2, 1], [p.shift, 0])
  const logScale = b.fixed('dp.flows.0.logs', [2, 1], 0)
  return b.scope('dp', () => {
    const shape = concatInts(b, [1, 2, dim(b, p.mask, 2)])
    const zeros = b.op('ConstantOfShape', [shape], { value: { kind: 'tensor', value: { name: '', type: 1, dims: [1], values: Float32Array.of(0) } } })
    let z = b.op('Mul', [b.op('RandomNormalLike', [zeros], { dtype: int(1) }), p.noiseW])
    // Reverse order of [affine, ConvFlow, Flip, ConvFlow, Flip, ConvFlow, Flip, ConvFlow, Flip],
    // without the first ConvFlow, which VITS drops at inference.
    for (const index of [7, 5, 3]) {
      z = flipChannels(b, z)
      z = convFlow(b, z, `dp.flows.${index}`, h, p.mask, condition)
    }
    z = flipChannels(b, z)
    const affine = b.op('Mul', [b.op('Mul', [b.op('Sub', [z, mean]), b.op('Exp', [b.op('Neg', [logScale])])]), p.mask])
    return b.node('Split', [affine, b.i64([1, 1])], { axis: int(1) }, 2)[0]
  })
}
