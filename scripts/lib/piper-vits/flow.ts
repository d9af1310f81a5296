// The normalising flow, in reverse: four mean-only residual coupling layers,
// each a WaveNet (gated kernel-5 convolutions with residual and skip
// outputs) on half the channels, with the channel flips between them. Every
// operation is frame-local, which is what lets the engine run it in chunks.

import { GraphBuilder, int } from '../graph-builder.js'
import type { VitsHyperparameters } from './hparams.js'
import { conv, flipChannels, slice } from './layers.js'

function zerosLike (b: GraphBuilder, x: string): string {
  return b.op('ConstantOfShape', [b.op('Shape', [x])], { value: { kind: 'tensor', value: { name: '', type: 1, dims: [1], values: Float32Array.of(0) } } })
}

function waveNet (b: GraphBuilder, x0: string, name: string, h: VitsHyperparameters, mask: string, g?: string): string {
  const channels = h.hidden
  let x = x0
  let output = b.scope(name, () => zerosLike(b, x))
  const cond = g === undefined ? undefined : conv(b, g, `${name}.cond_layer`, { inC: h.gin, outC: 2 * channels * h.flowLayers })
  for (let i = 0; i < h.flowLayers; i++) {
    const xIn = conv(b, x, `${name}.in_layers.${i}`, { inC: channels, outC: 2 * channels, kernel: h.flowKernel })
    const last = i === h.flowLayers - 1
    const resSkip = b.scope(name, () => {
      const gl = cond === undefined ? zerosLike(b, xIn) : slice(b, cond, [2 * channels * i], [2 * channels * (i + 1)], [1])
      const act = b.op('Add', [xIn, gl])
      const gate = b.op('Mul', [b.op('Tanh', [slice(b, act, [0], [channels], [1])]), b.op('Sigmoid', [slice(b, act, [channels], [2 * channels], [1])])])
      return gate
    })
    const rs = conv(b, resSkip, `${name}.res_skip_layers.${i}`, { inC: channels, outC: last ? channels : 2 * channels })
    b.scope(name, () => {
      if (last) {
        output = b.op('Add', [output, rs])
      } else {
        x = b.op('Mul', [b.op('Add', [x, slice(b, rs, [0], [channels], [1])]), mask])
        output = b.op('Add', [output, slice(b, rs, [channels], [2 * channels], [1])])
      }
    })
  }
  return b.scope(name, () => b.op('Mul', [output, mask]))
}

function couplingLayer (b: GraphBuilder, z: string, name: string, h: VitsHyperparameters, mask: string, g?: string): string {
  const half = h.inter / 2
  const [x0, x1] = b.scope(name, () => b.node('Split', [z, b.i64([half, half])], { axis: int(1) }, 2))
  const pre = b.scope(name, () => b.op('Mul', [conv(b, x0, `${name}.pre`, { inC: half, outC: h.hidden }), mask]))
  const hidden = waveNet(b, pre, `${name}.enc`, h, mask, g)
  // VITS zeroes `post` at init (identity flow); small random weights make
  // the flow matter, so chunked runs must get its context right.
  const mean = b.scope(name, () => b.op('Mul', [conv(b, hidden, `${name}.post`, { inC: h.hidden, outC: half, gain: 0.3 }), mask]))
  return b.scope(name, () => {
    const logScale = zerosLike(b, mean) // mean-only: log-scale is zero
    const shifted = b.op('Mul', [b.op('Mul', [b.op('Sub', [x1, mean]), b.op('Exp', [b.op('Neg', [logScale])])]), mask])
    return b.op('Concat', [x0, shifted], { axis: int(1) })
  })
}

/** z_p → z, through the flows in reverse order. */
export function reverseFlow (b: GraphBuilder, h: VitsHyperparameters, zp: string, mask: string, g?: string): string {
  let z = zp
  for (let i = h.flows - 1; i >= 0; i--) {
    z = b.scope('flow', () => flipChannels(b, z))
    z = couplingLayer(b, z, `flow.flows.${2 * i}`, h, mask, g)
  }
  return z
}
