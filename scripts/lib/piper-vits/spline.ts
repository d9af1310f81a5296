// The inverse of an unconstrained rational-quadratic spline with linear
// tails (Durkan et al., "Neural Spline Flows"; VITS's transforms.py), as the
// duration predictor's ConvFlow applies it: per element, K bins on
// [-bound, bound], identity outside. The export gathers the inside elements
// with NonZero/GatherND and scatters them back; here every element is
// transformed, clamped into the interval, and Where picks identity outside,
// which gives the same values with a graph that has no data-dependent shapes.

import { GraphBuilder, int } from '../graph-builder.js'
import { slice, squeeze, unsqueeze } from './layers.js'

const MIN_BIN = 1e-3
const MIN_DERIVATIVE = 1e-3

interface Knots {
  /** Bin edges [1, 1, L, K+1], from -bound to bound. */
  edges: string
  /** Bin sizes [1, 1, L, K]. */
  sizes: string
}

function knots (b: GraphBuilder, unnormalised: string, bins: number, bound: number): Knots {
  const share = b.op('Softmax', [unnormalised], { axis: int(-1) })
  const sizes01 = b.op('Add', [b.f32([MIN_BIN], true), b.op('Mul', [b.f32([1 - MIN_BIN * bins], true), share])])
  const cumulative = b.op('CumSum', [sizes01, b.i64([-1], true)])
  const from0 = b.op('Pad', [cumulative, b.i64([0, 0, 0, 1, 0, 0, 0, 0])])
  const edges = b.op('Sub', [b.op('Mul', [from0, b.f32([2 * bound], true)]), b.f32([bound], true)])
  const sizes = b.op('Sub', [slice(b, edges, [1], [bins + 1], [3]), slice(b, edges, [0], [bins], [3])])
  return { edges, sizes }
}

/** `x` [1, 1, L] through the inverse spline whose parameters are
 * `widths`, `heights` [1, 1, L, K] and `derivatives` [1, 1, L, K-1]. */
export function inverseSpline (b: GraphBuilder, x: string, p: { widths: string, heights: string, derivatives: string, bins: number, bound: number }): string {
  const inside = b.op('And', [
    b.op('GreaterOrEqual', [x, b.f32([-p.bound], true)]),
    b.op('LessOrEqual', [x, b.f32([p.bound], true)])
  ])
  const xs = unsqueeze(b, b.op('Clip', [x, b.f32([-p.bound], true), b.f32([p.bound], true)]), [-1]) // [1, 1, L, 1]
  const w = knots(b, p.widths, p.bins, p.bound)
  const hk = knots(b, p.heights, p.bins, p.bound)
  // The tails are linear: the end derivatives are 1 (softplus of this is 1 - min).
  const endValue = Math.log(Math.exp(1 - MIN_DERIVATIVE) - 1)
  const padded = b.op('Pad', [p.derivatives, b.i64([0, 0, 0, 1, 0, 0, 0, 1]), b.f32([endValue], true)])
  const derivatives = b.op('Add', [b.f32([MIN_DERIVATIVE], true), b.op('Softplus', [padded])])

  // The bin of each value: how many inner edges it has passed, by height.
  const passed = b.op('Cast', [b.op('GreaterOrEqual', [xs, hk.edges])], { to: int(1) })
  const count = b.op('ReduceSum', [passed, b.i64([-1])], { keepdims: int(1) })
  const bin = b.op('Clip', [b.op('Cast', [b.op('Sub', [count, b.f32([1], true)])], { to: int(7) }), b.i64([0], true), b.i64([p.bins - 1], true)])
  const at = (t: string) => b.op('GatherElements', [t, bin], { axis: int(-1) })

  const cumWidth = at(w.edges)
  const width = at(w.sizes)
  const cumHeight = at(hk.edges)
  const height = at(hk.sizes)
  const delta = at(b.op('Div', [hk.sizes, w.sizes]))
  const d0 = at(derivatives)
  const d1 = at(slice(b, derivatives, [1], [p.bins + 1], [3]))

  const offset = b.op('Sub', [xs, cumHeight])
  const curvature = b.op('Sub', [b.op('Add', [d0, d1]), b.op('Mul', [delta, b.f32([2], true)])])
  const qa = b.op('Add', [b.op('Mul', [offset, curvature]), b.op('Mul', [height, b.op('Sub', [delta, d0])])])
  const qb = b.op('Sub', [b.op('Mul', [height, d0]), b.op('Mul', [offset, curvature])])
  const qc = b.op('Mul', [b.op('Neg', [delta]), offset])
  const discriminant = b.op('Sub', [b.op('Pow', [qb, b.f32([2], true)]), b.op('Mul', [b.op('Mul', [qa, qc]), b.f32([4], true)])])
  // Never negative in exact arithmetic; clamped so rounding cannot make a NaN.
  const root = b.op('Sqrt', [b.op('Clip', [discriminant, b.f32([0], true), ''])])
  const theta = b.op('Div', [b.op('Mul', [qc, b.f32([2], true)]), b.op('Sub', [b.op('Neg', [qb]), root])])
  const out = squeeze(b, b.op('Add', [b.op('Mul', [theta, width]), cumWidth]), [-1])
  return b.op('Where', [inside, out, x])
}
