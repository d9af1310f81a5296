// The building blocks Piper's modules are made of, as its export writes
// them: 1-D convolutions, VITS's channel layer norm (mean and variance by
// hand), GELU through Erf, and the shape arithmetic a traced graph does.

import { GraphBuilder, TO_END, float, int, ints } from '../graph-builder.js'

export interface ConvOptions {
  inC: number
  outC: number
  kernel?: number
  dilation?: number
  group?: number
  bias?: boolean
  /** Scales the weights' bound (1: PyTorch's default init, 1/√fan_in). */
  gain?: number
  /** Padding on each side; "same" length by default. */
  pad?: number
}

/** A Conv1d module `name` applied to `x` ([1, inC, T]). */
export function conv (b: GraphBuilder, x: string, name: string, o: ConvOptions): string {
  const kernel = o.kernel ?? 1
  const dilation = o.dilation ?? 1
  const group = o.group ?? 1
  const fanIn = (o.inC / group) * kernel
  const bound = (o.gain ?? 1) / Math.sqrt(fanIn)
  const inputs = [x, b.weight(`${name}.weight`, [o.outC, o.inC / group, kernel], bound)]
  if (o.bias !== false) inputs.push(b.weight(`${name}.bias`, [o.outC], bound))
  const pad = o.pad ?? (kernel - 1) * dilation / 2
  return b.scope(name, () => b.op('Conv', inputs, {
    dilations: ints([dilation]), group: int(group), kernel_shape: ints([kernel]), pads: ints([pad, pad]), strides: ints([1])
  }))
}

export function convTranspose (b: GraphBuilder, x: string, name: string, o: { inC: number, outC: number, kernel: number, stride: number, gain?: number }): string {
  const bound = (o.gain ?? 1) / Math.sqrt(o.inC * o.kernel)
  const bias = b.weight(`${name}.bias`, [o.outC], bound)
  const weight = b.weight(`${name}.weight`, [o.inC, o.outC, o.kernel], bound)
  const pad = (o.kernel - o.stride) / 2
  return b.scope(name, () => b.op('ConvTranspose', [x, weight, bias], {
    dilations: ints([1]), group: int(1), kernel_shape: ints([o.kernel]), pads: ints([pad, pad]), strides: ints([o.stride])
  }))
}

/** VITS's LayerNorm over channels of [1, C, T]: transposed, normalised, back. */
export function layerNorm (b: GraphBuilder, x: string, name: string, channels: number): string {
  const gamma = b.fixed(`${name}.gamma`, [channels], 1)
  const beta = b.fixed(`${name}.beta`, [channels], 0)
  return b.scope(name, () => {
    const t = b.op('Transpose', [x], { perm: ints([0, 2, 1]) })
    const mean = b.op('ReduceMean', [t], { axes: ints([-1]) })
    const centred = b.op('Sub', [t, mean])
    const variance = b.op('ReduceMean', [b.op('Pow', [centred, b.f32([2], true)])], { axes: ints([-1]) })
    const std = b.op('Sqrt', [b.op('Add', [variance, b.f32([1e-5], true)])])
    const normal = b.op('Add', [b.op('Mul', [b.op('Div', [centred, std]), gamma]), beta])
    return b.op('Transpose', [normal], { perm: ints([0, 2, 1]) })
  })
}

/** Exact GELU, x·½·(1 + erf(x/√2)). */
export function gelu (b: GraphBuilder, x: string): string {
  const erf = b.op('Erf', [b.op('Div', [x, b.f32([Math.SQRT2], true)])])
  return b.op('Mul', [b.op('Mul', [x, b.op('Add', [erf, b.f32([1], true)])]), b.f32([0.5], true)])
}

export function leakyRelu (b: GraphBuilder, x: string, alpha = 0.1): string {
  return b.op('LeakyRelu', [x], { alpha: float(alpha) })
}

/** Dimension `axis` of `x` as a 1-element int64 tensor: a scalar read from
 * the shape, then unsqueezed, as a traced `x.size(axis)` is. */
export function dim (b: GraphBuilder, x: string, axis: number): string {
  const size = b.op('Gather', [b.op('Shape', [x]), b.i64([axis], true)], { axis: int(0) })
  return b.op('Unsqueeze', [size, b.i64([0])])
}

/** `x` as a scalar (for Range). */
export function scalar (b: GraphBuilder, x: string): string {
  return b.op('Squeeze', [x, b.i64([0])])
}

export const unsqueeze = (b: GraphBuilder, x: string, axes: number[]): string => b.op('Unsqueeze', [x, b.i64(axes)])
export const squeeze = (b: GraphBuilder, x: string, axes: number[]): string => b.op('Squeeze', [x, b.i64(axes)])
export const transpose = (b: GraphBuilder, x: string, perm: number[]): string => b.op('Transpose', [x], { perm: ints(perm) })
export const cast = (b: GraphBuilder, x: string, to: 'float' | 'int64'): string => b.op('Cast', [x], { to: int(to === 'float' ? 1 : 7) })

/** A sequence mask [1, 1, T] (float) for `lengths` [1] over `length` [1] positions. */
export function sequenceMask (b: GraphBuilder, lengths: string, length: string): string {
  const range = b.op('Range', [b.i64([0], true), scalar(b, length), b.i64([1], true)])
  const less = b.op('Less', [unsqueeze(b, range, [0]), unsqueeze(b, lengths, [1])])
  return cast(b, unsqueeze(b, less, [1]), 'float')
}

/** Slice along `axes` with constant or computed bounds. */
export function slice (b: GraphBuilder, x: string, starts: number[] | string, ends: number[] | string, axes: number[], steps?: number[]): string {
  const inputs = [x, typeof starts === 'string' ? starts : b.i64(starts), typeof ends === 'string' ? ends : b.i64(ends), b.i64(axes)]
  if (steps !== undefined) inputs.push(b.i64(steps))
  return b.op('Slice', inputs)
}

/** Reverses the channel axis (torch.flip(x, [1])), a Flip module of the flows. */
export function flipChannels (b: GraphBuilder, x: string): string {
  return slice(b, x, [-1], [-TO_END], [1], [-1])
}

export function concatInts (b: GraphBuilder, parts: Array<string | number>): string {
  return b.op('Concat', parts.map(p => typeof p === 'number' ? b.i64([p]) : p), { axis: int(0) })
}
