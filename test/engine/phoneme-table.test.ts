// The model's phoneme table (the embedding the ids index) read from a model
// file's fields, its weights skipped, and a config compared with it: every
// voice the project makes fits; num_symbols or ids past the table do not.

import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { parseVoiceConfig, type VoiceConfig } from '../../src/engine/voice-config.js'
import { phonemeTableProblem, phonemeTableRows, symbolsProblem } from '../../src/engine/onnx/phoneme-table.js'
import { buildBenchModel, STAND_INS } from '../../scripts/make-bench-voices.js'
import { encodeModel, TensorType, type Graph } from '../../scripts/lib/onnx-writer.js'
import { buildVitsLikeModel } from '../../scripts/lib/vits-model.js'
import { BENCH_VOICES, FIXTURES, testVoiceDir } from '../helpers/voices.js'

const dir = await mkdtemp(join(tmpdir(), 'chorus-phoneme-table-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

async function modelFile (name: string, bytes: Uint8Array): Promise<{ path: string, size: number }> {
  const path = join(dir, `${name}.onnx`)
  await writeFile(path, bytes)
  return { path, size: bytes.length }
}

async function lessac (): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(FIXTURES, 'configs/en_US-lessac-medium.onnx.json'), 'utf8'))
}

/** A graph whose ids index `table` through `before` (nodes that make the table). */
function gatherGraph (table: Graph['initializers'], before: Graph['nodes'], tableName: string): Uint8Array {
  return encodeModel({
    name: 'table-test',
    nodes: [...before, { opType: 'Gather', inputs: [tableName, 'input'], outputs: ['output'] }],
    initializers: table,
    inputs: [{ name: 'input', type: TensorType.INT64, shape: [1, 'phonemes'] }],
    outputs: [{ name: 'output', type: TensorType.FLOAT, shape: [1, 'phonemes', 4] }]
  }, 15, 'chorus tests')
}

const weights = (name: string, rows: number, columns: number) => ({ name, type: TensorType.FLOAT, dims: [rows, columns], values: new Float32Array(rows * columns) })

t.test('the table is found by what indexes it, not by its name', async t => {
  const vits = await modelFile('vits', buildVitsLikeModel({ speakerInput: true }))
  t.equal(await phonemeTableRows(vits.path, vits.size), 256, 'the VITS-shaped test model: its `emb`, not the speakers\' table')
  // The stand-ins' own exports: single-speaker ones name the table `sid`.
  for (const voice of STAND_INS) {
    const model = await modelFile(voice.name, buildBenchModel(voice, 8))
    t.equal(await phonemeTableRows(model.path, model.size), 256, voice.name)
  }
  const constant = await modelFile('constant', gatherGraph([], [
    { opType: 'Constant', inputs: [], outputs: ['made'], attributes: { value: { kind: 'tensor', value: weights('unused', 40, 4) } } },
    { opType: 'Identity', inputs: ['made'], outputs: ['copied'] }
  ], 'copied'))
  t.equal(await phonemeTableRows(constant.path, constant.size), 40, 'a Constant node\'s value, through an Identity')
})

t.test('no table to compare with: nothing to check', async t => {
  const probe = join(await testVoiceDir(), 'en_US-probe-medium.onnx')
  const size = (await readFile(probe)).length
  t.equal(await phonemeTableRows(probe, size), undefined, 'a probe model casts its ids, it embeds nothing')
  const twoTables = await modelFile('two', encodeModel({
    name: 'two-tables',
    nodes: [{ opType: 'Gather', inputs: ['a', 'input'], outputs: ['x'] }, { opType: 'Gather', inputs: ['b', 'input'], outputs: ['y'] }],
    initializers: [weights('a', 10, 2), weights('b', 20, 2)],
    inputs: [{ name: 'input', type: TensorType.INT64, shape: [1, 'phonemes'] }],
    outputs: [{ name: 'x', type: TensorType.FLOAT, shape: [1] }]
  }, 15, 'chorus tests'))
  t.equal(await phonemeTableRows(twoTables.path, twoTables.size), undefined, 'two tables: which one is meant is not known')
})

t.test('the weights are skipped, not read, and the walk is bounded', async t => {
  // 16 MB of weights before the table; reads limited to 256 KiB still find it.
  const model = await modelFile('heavy', gatherGraph([weights('heavy', 4096, 1024), weights('table', 300, 4)], [], 'table'))
  t.equal(await phonemeTableRows(model.path, model.size, { bytes: 256 * 1024, fields: 10_000 }), 300)
  t.equal(await phonemeTableRows(model.path, model.size, { bytes: 256 * 1024, fields: 5 }), undefined, 'past the field limit: not judged')
  t.equal(await phonemeTableRows(model.path, model.size, { bytes: 1024, fields: 10_000 }), undefined, 'past the byte limit: not judged')
})

t.test('a config is compared with the table: num_symbols and every id', async t => {
  const config = (changes: Record<string, unknown>): VoiceConfig => parseVoiceConfig({ ...base, ...changes }, '/srv/voices/x.onnx.json')
  const base = await lessac()
  t.equal(symbolsProblem(config({}), 256, '/srv/voices/x.onnx.json'), undefined, 'lessac\'s config fits a 256-row table')
  t.equal(symbolsProblem(config({ num_symbols: 200 }), 256, 'x.onnx.json'), undefined, 'fewer symbols than rows still fit')
  t.equal(symbolsProblem(config({ num_symbols: 100_000 }), 256, '/srv/voices/x.onnx.json'),
    'Expected at most 256 for num_symbols but received 100000 (number) in x.onnx.json (the model\'s phoneme table has 256 rows)')
  const map = { ...(base.phoneme_id_map as Record<string, number[]>), z: [300] }
  t.equal(symbolsProblem(config({ phoneme_id_map: map }), 256, 'x.onnx.json'),
    'Expected ids below 256 for phoneme_id_map["z"] but received 300 (number) in x.onnx.json (the model\'s phoneme table has 256 rows)')
  t.throws(() => config({ num_symbols: 'many' }), { code: 'ERR_VOICE_CONFIG', message: /num_symbols/ }, 'num_symbols is checked like every field')
})

t.test('every voice the project makes fits its model; a malformed graph is refused', async t => {
  const voices = await testVoiceDir()
  for (const folder of [voices, BENCH_VOICES]) {
    for (const file of (await readdir(folder)).filter(name => name.endsWith('.onnx'))) {
      const model = join(folder, file)
      const configFile = `${model}.json`
      const config = parseVoiceConfig(JSON.parse(await readFile(configFile, 'utf8')), configFile)
      t.equal(await phonemeTableProblem(model, (await stat(model)).size, config, configFile), undefined, file)
    }
  }
  const bytes = buildVitsLikeModel({ speakerInput: false })
  const cut = await modelFile('cut', bytes.subarray(0, bytes.length - 100))
  const config = parseVoiceConfig(await lessac(), 'cut.onnx.json')
  // The header says the graph runs to the end of the original file.
  t.match(await phonemeTableProblem(cut.path, bytes.length, config, 'cut.onnx.json'), /^cut\.onnx: the file is not an ONNX model \(.+\)$/)
})
