// npm run bench:encoder-threads [-- --voice PATH --repeats N]
// What a split voice's encoder run costs on one intra-op thread and on two:
// wall time (what an idle server's first audio waits for) and CPU time
// (what a busy server pays for it, since the second thread only contends
// with the other workers' runs). The same voice is loaded twice in one
// process, once per thread count, and the two are alternated.

import { PiperVoice, resolveSynthesisConfig } from '../src/engine/index.js'
import { median } from '../bench/stats.js'
import { benchVoiceArgs } from './bench-voice-args.js'

const { voicePath, repeats } = await benchVoiceArgs(9)

const TEXTS = [
  'Sure, I can help with that.',
  'Our next event starts in about twenty minutes, near the main stage, so grab a seat while you can.',
  'The market opens at nine and closes when the last trader leaves, unless it rains all day long.'
]

// Each thread count gets an encoder session of its own (the shared
// encoder's key holds the thread count), as in the service.
const voices = await Promise.all([1, 2].map(async threads => ({
  threads,
  voice: await PiperVoice.load(voicePath, { cut: 'decoder', session: { intraOpThreads: 1, encoderIntraOpThreads: threads } })
})))
const settings = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, voices[0].voice.config)
const ids = TEXTS.map(text => voices[0].voice.phonemeIds(voices[0].voice.phonemize(text)[0]).ids)

async function round (voice: PiperVoice): Promise<{ wallMs: number, cpuMs: number }> {
  const cpu = process.cpuUsage()
  const start = performance.now()
  for (const sentence of ids) await voice.encode(sentence, settings)
  const used = process.cpuUsage(cpu)
  return { wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000 }
}

for (const { voice } of voices) await round(voice)
const results = new Map(voices.map(v => [v.threads, [] as Array<{ wallMs: number, cpuMs: number }>]))
for (let r = 0; r < repeats; r++) {
  for (const { threads, voice } of r % 2 === 0 ? voices : [...voices].reverse()) results.get(threads)?.push(await round(voice))
}
console.log(`voice ${voices[0].voice.name}, decoder cut, ${TEXTS.length} sentences per round, ${repeats} alternated rounds, noise 0`)
console.log('encoder threads   wall ms per round   CPU ms per round')
for (const [threads, runs] of results) {
  console.log(`${String(threads).padStart(15)} ${median(runs.map(r => r.wallMs)).toFixed(1).padStart(19)} ${median(runs.map(r => r.cpuMs)).toFixed(1).padStart(18)}`)
}
const [one, two] = [1, 2].map(t => results.get(t) ?? [])
console.log(`\ntwo threads vs one: wall ${(median(two.map(r => r.wallMs)) / median(one.map(r => r.wallMs))).toFixed(3)}×, CPU ${(median(two.map(r => r.cpuMs)) / median(one.map(r => r.cpuMs))).toFixed(3)}×`)
for (const { voice } of voices) voice.close()
