// Runs in a worker thread for worker-threads.unit.ts: loads its own voice,
// phonemizes and synthesises `rounds` times, and reports every mismatch.

import { join } from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'

const { voiceDir, index, rounds } = workerData as { voiceDir: string, index: number, rounds: number }
const multi = index % 2 === 1
const voice = await PiperVoice.load(join(voiceDir, multi ? 'en_GB-probemulti-medium.onnx' : 'en_US-probe-medium.onnx'))
const texts = ['Hello there.', 'Are you coming tonight?', 'Well, I think so; maybe: not sure.', 'I have 3 apples.']
const expectedPhonemes = ['həlˈoʊ ðˈɛɹ.', 'ɑːɹ juː kˈʌmɪŋ tənˈaɪt?', 'wˈɛl, aɪ θˈɪŋk sˈoʊ; mˈeɪbiː: nˌɑːt ʃˈʊɹ.', 'aɪ hæv θɹˈiː ˈæpəlz.']
const failures: string[] = []
let checked = 0

for (let round = 0; round < rounds; round++) {
  const which = (round + index) % texts.length
  const [phonemes] = voice.phonemize(texts[which])
  const spelled = String.fromCodePoint(...phonemes)
  // en-gb-x-rp phonemizes differently; the en-us voice's text is fixed.
  if (!multi && spelled !== expectedPhonemes[which].normalize('NFD')) failures.push(`round ${round}: phonemes ${spelled}`)
  checked++
  const speaker = multi ? (round * 7 + index) % 109 : 0
  const settings = resolveSynthesisConfig({ noiseScale: (round % 10) / 10, ...(multi ? { speaker } : {}) }, voice.config)
  const { ids } = voice.phonemeIds(phonemes)
  const reading = readProbeOutput(await voice.infer(ids, settings), multi)
  const idsMatch = reading.ids.length === ids.length && reading.ids.every((id, i) => id === Number(ids[i]))
  if (!idsMatch || Math.abs(reading.noiseScale - (round % 10) / 10) > 1e-4 || (multi && reading.speakerId !== speaker)) {
    failures.push(`round ${round}: inference read back ${JSON.stringify(reading)}`)
  }
  checked++
}
voice.close()
parentPort?.postMessage({ checked, failures })
