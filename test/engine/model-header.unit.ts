// A model file's header is checked before the whole file is read: every
// model the project makes passes; garbage, truncation and files past ONNX's
// 2 GiB limit are refused by their first bytes and size, and the scan lists
// such voices as broken without loading them.

import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { headerProblem, MAX_MODEL_BYTES, modelHeaderProblem } from '../../src/engine/onnx/model-header.js'
import { createLogger } from '../../src/shared/logger.js'
import { VoiceRegistry } from '../../src/voices/registry.js'
import { testVoiceDir } from '../helpers/voices.js'

t.test('every generated model passes', async t => {
  const dir = await testVoiceDir()
  const models = (await readdir(dir)).filter(file => file.endsWith('.onnx'))
  t.ok(models.length > 0)
  for (const file of models) {
    const bytes = await readFile(join(dir, file))
    t.equal(headerProblem(bytes, bytes.length), undefined, file)
  }
})

t.test('garbage, truncation and empty headers are refused with a reason', async t => {
  const model = await readFile(join(await testVoiceDir(), 'en_US-vits-medium.onnx'))
  t.match(headerProblem(model.subarray(0, 100), 100), /^the model is truncated \(field 7 at byte \d+ runs past the end of the file\)$/)
  t.match(headerProblem(Buffer.from('definitely not onnx'), 19), /^the file is not an ONNX model/)
  t.match(headerProblem(new Uint8Array(4096), 4096), /^the file is not an ONNX model \(field 0 at byte 0\)$/)
  t.match(headerProblem(Uint8Array.of(0x08, 0x08), 2), /^the file is not an ONNX model \(no graph in its header\)$/)
  t.match(headerProblem(Uint8Array.of(0x08, 0xff), 2), /^the file is not an ONNX model \(malformed at byte 0\)$/)
})

t.test('sparse files past the limit, and large garbage, cost only their header', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-header-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const huge = join(dir, 'huge.onnx')
  await writeFile(huge, '')
  await truncate(huge, 20 * 1024 ** 3)
  t.equal(await modelHeaderProblem(huge, 20 * 1024 ** 3), `the model is ${20 * 1024 ** 3} bytes, over ONNX's limit of ${MAX_MODEL_BYTES} (2 GiB)`)
  const garbage = join(dir, 'garbage.onnx')
  await writeFile(garbage, 'x')
  await truncate(garbage, 1.5 * 1024 ** 3)
  t.match(await modelHeaderProblem(garbage, 1.5 * 1024 ** 3), /^the file is not an ONNX model/)

  // The scan lists such voices as broken, with the reason, and never as voices.
  const config = await readFile(join(await testVoiceDir(), 'en_US-probe-medium.onnx.json'))
  const voices = join(dir, 'voices')
  await mkdir(voices)
  for (const [name, size] of [['en_US-huge-medium', 20 * 1024 ** 3], ['en_US-garbage-medium', 1.5 * 1024 ** 3]] as const) {
    await writeFile(join(voices, `${name}.onnx.json`), config)
    await writeFile(join(voices, `${name}.onnx`), 'x')
    await truncate(join(voices, `${name}.onnx`), size)
  }
  const registry = new VoiceRegistry(voices, createLogger('test', 'silent'), 60_000)
  await registry.rescan()
  t.same(registry.names(), [])
  const leftOut = registry.leftOut()
  t.match(leftOut.get('en_US-huge-medium'), /^en_US-huge-medium\.onnx: the model is 21474836480 bytes, over ONNX's limit/)
  t.match(leftOut.get('en_US-garbage-medium'), /^en_US-garbage-medium\.onnx: the file is not an ONNX model/)
})
