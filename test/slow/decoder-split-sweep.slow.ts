// The decoder split's full sweep (npm test runs a few well-chosen cases of
// it, test/engine/decoder-split.test.ts): both cuts on both bench voices,
// and every reference sentence on the generated and the bench voice.

import { join } from 'node:path'
import t from 'tap'
import { flowCutMatchesWhole, referenceSentencesMatchWhole, stagedCutMatchesWhole } from '../helpers/decoder-split-checks.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES } from '../helpers/voices.js'

const BOTH = ['en_US-bench-x_low', 'en_GB-benchmulti-medium']

t.test('bench voices: one long sentence, chunked at either cut, equals the whole graph', unless(NO_BENCH_VOICES), async t => {
  await flowCutMatchesWhole(t, BOTH)
})

t.test('bench voices: the staged cut equals the whole graph, chunk by chunk or flowed at once', unless(NO_BENCH_VOICES), async t => {
  await stagedCutMatchesWhole(t, BOTH)
})

t.test('bench voice: every reference sentence, chunked with the flow, equals the whole graph', unless(NO_BENCH_VOICES), async t => {
  await referenceSentencesMatchWhole(t, join(BENCH_VOICES, 'en_US-bench-x_low.onnx'))
})
