// Process-wide engine start-up: the addon, ONNX Runtime and espeak-ng, each
// loaded once per process (the addon itself once per thread). Safe to call
// from any thread, any number of times, with the same paths.

import { NativeLoadError } from './errors.js'
import { BUNDLED_ESPEAK_DATA, bundledOrtLibrary, loadBinding, toTypedError, type NativeBinding } from './native.js'

export interface RuntimeOptions {
  /** libonnxruntime.so.1 to load; default: the one inside onnxruntime-node. */
  ortLibrary?: string
  /** espeak-ng-data folder; default: the one npm install fetched. */
  espeakData?: string
}

export interface Runtime {
  binding: NativeBinding
  ortVersion: string
  espeakSampleRate: number
}

let runtime: Runtime | undefined

export function initRuntime (options: RuntimeOptions = {}): Runtime {
  if (runtime !== undefined) return runtime
  const binding = loadBinding()
  let ortVersion: string
  try {
    ortVersion = binding.loadOrt(options.ortLibrary ?? bundledOrtLibrary())
  } catch (error) {
    throw toTypedError(error)
  }
  let espeakSampleRate: number
  try {
    espeakSampleRate = binding.initEspeak(options.espeakData ?? BUNDLED_ESPEAK_DATA)
  } catch (error) {
    // Data that cannot be read is a start-up failure, not a phonemizer one.
    throw new NativeLoadError((error as Error).message, { cause: error })
  }
  runtime = { binding, ortVersion, espeakSampleRate }
  return runtime
}

/**
 * Whether espeak-ng has a voice of this name (a config's espeak.voice), so a
 * voice that could never phonemize is left out when the folder is scanned
 * rather than failing every request. Undefined before the runtime is up.
 * Selecting a voice is the only reliable test: espeak-ng resolves names,
 * aliases and variants its own way.
 */
export function espeakHasVoice (name: string): boolean | undefined {
  if (runtime === undefined) return undefined
  try {
    runtime.binding.phonemize('a', name)
    return true
  } catch {
    return false
  }
}

/**
 * Hands freed memory back to the operating system: the unused regions of
 * ONNX Runtime's process-wide arena (which otherwise keeps every block it
 * grew by) and glibc's freed blocks. Runs off the JS thread; a no-op before
 * the runtime is up.
 */
export async function releaseFreedMemory (): Promise<void> {
  await runtime?.binding.releaseMemory()
}
