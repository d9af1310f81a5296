// Piper's VITS hyperparameters per quality preset (piper_train's model
// defaults and its x_low preset), as its ONNX exports of them show: the
// channel widths decide a voice's size, the decoder's upsampling its cost
// per second of audio.

export interface VitsHyperparameters {
  /** Text encoder, duration predictor and flow width. */
  hidden: number
  /** The latent's channels (the prior's mean and log-variance each). */
  inter: number
  /** The encoder's feed-forward width. */
  filter: number
  heads: number
  encoderLayers: number
  /** Relative-position attention reaches ±window phonemes. */
  window: number
  /** The flow: coupling layers, WaveNet layers each, their kernel. */
  flows: number
  flowLayers: number
  flowKernel: number
  /** The stochastic duration predictor's spline bins. */
  splineBins: number
  /** HiFi-GAN: resblock type 2, as Piper's medium and x_low. */
  upsampleInitial: number
  upsampleRates: number[]
  upsampleKernels: number[]
  resblockKernels: number[]
  resblockDilations: number[][]
  /** Speaker conditioning width (multi-speaker voices). */
  gin: number
  vocabulary: number
}

const medium: VitsHyperparameters = {
  hidden: 192,
  inter: 192,
  filter: 768,
  heads: 2,
  encoderLayers: 6,
  window: 4,
  flows: 4,
  flowLayers: 4,
  flowKernel: 5,
  splineBins: 10,
  upsampleInitial: 256,
  upsampleRates: [8, 8, 4],
  upsampleKernels: [16, 16, 8],
  resblockKernels: [3, 5, 7],
  resblockDilations: [[1, 2], [2, 6], [3, 12]],
  gin: 512,
  vocabulary: 256
}

/** x_low halves the text side; the decoder is medium's. */
const xLow: VitsHyperparameters = { ...medium, hidden: 96, inter: 96, filter: 384 }

export const PRESETS = { medium, x_low: xLow } as const
export type Quality = keyof typeof PRESETS

/** Output samples per latent frame. */
export const hopLength = (h: VitsHyperparameters): number => h.upsampleRates.reduce((a, b) => a * b, 1)
