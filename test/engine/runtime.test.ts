// Start-up failures of the engine's runtime: each names what it tried. Each
// case runs in a child process, since ONNX Runtime and espeak-ng are loaded
// once per process.

import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { nodeCommand, TSX_ARGS } from '../helpers/tsx.js'

const run = promisify(execFile)
const runtimeModule = join(PACKAGE_ROOT, 'src/engine/runtime.ts')

async function initIn (options: Record<string, string>): Promise<{ name: string, code: string, message: string } | { ok: true, ort: string, rate: number }> {
  const script = `
    import { initRuntime } from ${JSON.stringify(runtimeModule)}
    try {
      const r = initRuntime(${JSON.stringify(options)})
      console.log(JSON.stringify({ ok: true, ort: r.ortVersion, rate: r.espeakSampleRate }))
    } catch (e) {
      console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message }))
    }`
  const { stdout } = await run(...nodeCommand([...TSX_ARGS, '--input-type=module', '-e', script]), { timeout: CHILD_HANG_GUARD_MS })
  return JSON.parse(stdout)
}

t.test('the default runtime loads ONNX Runtime and the 1.51 espeak-ng data', async t => {
  t.match(await initIn({}), { ok: true, ort: /^1\.\d+\.\d+$/, rate: 22050 })
})

t.test('a wrong espeak-ng data path is an error naming it', async t => {
  t.match(await initIn({ espeakData: '/nonexistent/espeak-ng-data' }), {
    name: 'NativeLoadError', code: 'ERR_NATIVE_LOAD', message: /No espeak-ng data \(phontab\) in \/nonexistent\/espeak-ng-data/
  })
})

t.test('a wrong ONNX Runtime library is an error naming it', async t => {
  t.match(await initIn({ ortLibrary: '/nonexistent/libonnxruntime.so.1' }), {
    name: 'NativeLoadError', code: 'ERR_NATIVE_LOAD', message: /Cannot load ONNX Runtime from \/nonexistent\/libonnxruntime\.so\.1/
  })
  // A real shared library that is not ONNX Runtime.
  t.match(await initIn({ ortLibrary: 'libm.so.6' }), { code: 'ERR_NATIVE_LOAD', message: /No OrtGetApiBase symbol in libm\.so\.6/ })
})
