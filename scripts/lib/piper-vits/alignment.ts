// From log-durations to frames, as Piper's export does it: durations are
// exp(logw) × length_scale rounded up (Ceil: whole frames per phoneme), their
// sum is the output length, and the path matrix (a cumulative sum turned
// into a sequence mask, minus itself shifted by one phoneme) expands the
// prior's mean and log-variance to frames with a MatMul.

import { GraphBuilder, int } from '../graph-builder.js'
import { cast, concatInts, dim, sequenceMask, slice, squeeze, transpose, unsqueeze } from './layers.js'

export interface Frames {
  /** [1, channels, T] each. */
  mean: string
  logVariance: string
  /** [1, 1, T] float. */
  mask: string
}

export function expandToFrames (b: GraphBuilder, p: {
  logDurations: string, textMask: string, lengthScale: string, mean: string, logVariance: string
}): Frames {
  const durations = b.op('Mul', [b.op('Mul', [b.op('Exp', [p.logDurations]), p.textMask]), p.lengthScale])
  const frames = b.op('Ceil', [durations]) // [1, 1, N]
  const total = b.op('ReduceSum', [frames, b.i64([1, 2])], { keepdims: int(0) }) // [1]
  const lengths = cast(b, b.op('Clip', [total, b.f32([1], true), '']), 'int64')
  const longest = b.op('ReduceMax', [lengths], { keepdims: int(1) }) // [1]
  const mask = sequenceMask(b, lengths, longest) // [1, 1, T]
  const pairs = b.op('Mul', [unsqueeze(b, p.textMask, [2]), unsqueeze(b, mask, [3])]) // [1, 1, T, N]

  // Phoneme i covers frames [end(i-1), end(i)): the mask of its end minus the one before.
  const phonemes = dim(b, p.textMask, 2)
  const ends = b.op('Reshape', [b.op('CumSum', [frames, b.i64([2], true)]), b.i64([-1])]) // [N]
  const positions = b.op('Range', [b.f32([0], true), cast(b, squeeze(b, longest, [0]), 'float'), b.f32([1], true)])
  const upTo = cast(b, b.op('Less', [unsqueeze(b, positions, [0]), unsqueeze(b, ends, [1])]), 'float') // [N, T]
  const byPhoneme = b.op('Reshape', [upTo, concatInts(b, [1, phonemes, -1])]) // [1, N, T]
  const before = slice(b, b.op('Pad', [byPhoneme, b.i64([0, 1, 0, 0, 0, 0])]), [0], [-1], [1])
  const path = b.op('Mul', [transpose(b, unsqueeze(b, b.op('Sub', [byPhoneme, before]), [1]), [0, 1, 3, 2]), pairs])
  const attention = squeeze(b, path, [1]) // [1, T, N]
  const expand = (t: string) => transpose(b, b.op('MatMul', [attention, transpose(b, t, [0, 2, 1])]), [0, 2, 1])
  return { mean: expand(p.mean), logVariance: expand(p.logVariance), mask }
}
