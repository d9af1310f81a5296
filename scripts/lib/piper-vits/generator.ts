// The HiFi-GAN generator (resblock type 2, as Piper's medium and x_low):
// conv_pre, then per upsampling a transposed convolution and the mean of
// three residual blocks of dilated convolutions, then conv_post and tanh.

import { GraphBuilder } from '../graph-builder.js'
import type { VitsHyperparameters } from './hparams.js'
import { conv, convTranspose, leakyRelu } from './layers.js'

/** PyTorch's default init leaves the random decoder's signal at about
 * 0.01 before tanh; this gain on conv_post makes it audible noise, still
 * inside [-1, 1] (tanh). */
const POST_GAIN = 30

function resBlock (b: GraphBuilder, x: string, first: string, name: string, channels: number, kernel: number, dilations: number[]): string {
  let out = x
  dilations.forEach((dilation, j) => {
    const input = j === 0 ? first : b.scope(name, () => leakyRelu(b, out))
    const y = conv(b, input, `${name}.convs.${j}`, { inC: channels, outC: channels, kernel, dilation })
    out = b.scope(name, () => b.op('Add', [y, out]))
  })
  return out
}

export function generator (b: GraphBuilder, h: VitsHyperparameters, z: string, g?: string): string {
  let x = conv(b, z, 'dec.conv_pre', { inC: h.inter, outC: h.upsampleInitial, kernel: 7 })
  if (g !== undefined) {
    const cond = conv(b, g, 'dec.cond', { inC: h.gin, outC: h.upsampleInitial })
    x = b.scope('dec', () => b.op('Add', [x, cond]))
  }
  const kernels = h.resblockKernels.length
  h.upsampleRates.forEach((rate, i) => {
    const inC = h.upsampleInitial / 2 ** i
    const up = convTranspose(b, b.scope('dec', () => leakyRelu(b, x)), `dec.ups.${i}`, { inC, outC: inC / 2, kernel: h.upsampleKernels[i], stride: rate })
    // Every block starts with the same activation: computed once, as the export does.
    const first = b.scope(`dec.resblocks.${i * kernels}`, () => leakyRelu(b, up))
    let sum: string | undefined
    for (let j = 0; j < kernels; j++) {
      const index = i * kernels + j
      const block = resBlock(b, up, first, `dec.resblocks.${index}`, inC / 2, h.resblockKernels[j], h.resblockDilations[j])
      sum = sum === undefined ? block : b.scope('dec', () => b.op('Add', [sum as string, block]))
    }
    x = b.scope('dec', () => b.op('Div', [sum as string, b.f32([kernels], true)]))
  })
  const channels = h.upsampleInitial / 2 ** h.upsampleRates.length
  const post = conv(b, b.scope('dec', () => leakyRelu(b, x, 0.01)), 'dec.conv_post', { inC: channels, outC: 1, kernel: 7, bias: false, gain: POST_GAIN })
  return b.scope('dec', () => b.op('Tanh', [post]))
}
