// A voice whose memory estimate exceeds TTS_VOICE_MEMORY_BYTES can never
// load: it is refused at the folder scan, listed as broken with the reason,
// answered as a broken voice, and never evicts the idle default voice
// (issue 27, finding 5: a huge .onnx retired the default voice, then failed).

import { copyFile, stat, truncate } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { LOAD_ESTIMATE_FACTOR, overBudgetReason } from '../../src/pool/pool-manager.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'

t.test('the reason: the estimate, the model\'s size and the budget', async t => {
  t.equal(overBudgetReason(100, 200), undefined, 'exactly at the budget fits')
  t.equal(overBudgetReason(101, 200),
    `its estimated memory (202 bytes, ${LOAD_ESTIMATE_FACTOR} × its model's 101) is over the voice memory budget of 200 bytes (TTS_VOICE_MEMORY_BYTES)`)
})

t.test('an over-budget model is broken at the scan and never evicts the idle default voice', async t => {
  const source = join(await testVoiceDir(), 'en_US-probe-medium.onnx')
  const modelBytes = (await stat(source)).size
  // Room for the default voice alone.
  const budget = modelBytes * LOAD_ESTIMATE_FACTOR + 1024
  const service = await startTestService({ TTS_VOICE_MEMORY_BYTES: String(budget), TTS_WORKERS_PER_VOICE: '1' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  const pools = service.deps.pools
  t.equal(pools.state('en_US-probe-medium'), 'loaded')

  // The same model, made ten times as large (sparse: it costs no disk): its header is still an ONNX model's.
  const huge = join(service.voiceDir, 'en_US-huge-medium.onnx')
  await copyFile(`${source}.json`, `${huge}.json`)
  await copyFile(source, huge)
  await truncate(huge, modelBytes * 10)
  const reason = `en_US-huge-medium.onnx: ${overBudgetReason(modelBytes * 10, budget) as string}`
  await eventually('the scan has seen the huge voice', async () =>
    ((await request(service.url + '/voices')).json.broken as Array<{ name: string }>).some(b => b.name === 'en_US-huge-medium'))
  t.same(((await request(service.url + '/voices')).json.broken as Array<{ name: string, reason: string }>).find(b => b.name === 'en_US-huge-medium'),
    { name: 'en_US-huge-medium', reason }, 'listed as broken, with the reason')
  t.equal(service.deps.registry.get('en_US-huge-medium'), undefined, 'not among the voices served')

  const reply = await postTts(service.url, { text: 'Hi.', voice: 'en_US-huge-medium' })
  t.equal(reply.status, 500)
  t.same(reply.json, { error: `Voice en_US-huge-medium cannot be loaded: ${reason}`, code: 'ERR_VOICE_BROKEN', voice: 'en_US-huge-medium', reason })
  t.equal(pools.state('en_US-probe-medium'), 'loaded', 'the idle default voice is still loaded')
  t.notOk(service.logs.some(line => line.msg === 'voice unloading'), 'nothing was evicted')
  t.equal((await request(service.url + '/ready')).status, 200, 'still ready')
})
