// The built-in voice's timing, from espeak-ng's own word and phoneme events:
// per clause the phonemes tile its samples, clauses and sentences follow
// each other (or the sentence_silence), the last ends at the answer's last
// sample, and each timing chunk comes before its audio. Words are in order,
// inside their clause, each its slice of the text as sent, and the words as
// written. (espeak-ng's audio is not the same from one call to the next, so
// unlike a Piper voice's it is not compared with the audio without timing.)

import t from 'tap'
import { WAV_HEADER_BYTES } from '../../src/engine/riff-wave.js'
import type { SpeechChunk, SpeechRequest } from '../../src/synthesis/speech-service.js'
import type { TimingChunk } from '../../src/synthesis/timing.js'
import type { TtsRequest } from '../../src/synthesis/tts-request.js'
import { BUILTIN_VOICE } from '../../src/voices/builtin.js'
import { startTestService } from '../helpers/service.js'
import { localAdmission } from '../../src/synthesis/speech-admission.js'

const service = await startTestService({}, [])
t.teardown(() => service.stop())

async function hear (request: TtsRequest, timestamps?: SpeechRequest['timestamps']): Promise<{ timing: TimingChunk[], pcm: Buffer, late: number }> {
  const speech = await service.deps.speech.open({ request, format: 'wav', stream: request.stream, log: service.deps.log, admission: localAdmission(), ...(timestamps !== undefined ? { timestamps } : {}) })
  const audio: Buffer[] = []
  const timing: TimingChunk[] = []
  let bytes = 0
  let late = 0
  for await (const chunk of speech.chunks as AsyncIterable<SpeechChunk>) {
    if (chunk.kind === 'audio') {
      audio.push(Buffer.from(chunk.bytes))
      bytes += chunk.bytes.length
    } else {
      if (chunk.startSample < Math.max(0, (bytes - WAV_HEADER_BYTES) / 2)) late++
      timing.push(chunk)
    }
  }
  return { timing, pcm: Buffer.concat(audio).subarray(WAV_HEADER_BYTES), late }
}

const TEXT = ' Hello there, this costs $5. A second sentence; with 3 clauses, in all! '

for (const settings of [{ stream: false }, { stream: true, sentenceSilence: 0.25, lengthScale: 1.4 }]) {
  t.test(`${settings.stream ? 'streamed' : 'whole'}, sentence_silence ${settings.sentenceSilence ?? 0}`, async t => {
    const request: TtsRequest = { text: TEXT, voice: BUILTIN_VOICE, ...settings }
    const heard = await hear(request, ['word', 'phoneme', 'viseme'])
    const plain = await hear(request)
    t.ok(plain.timing.length === 0 && plain.pcm.length > 0, 'no timing when none is asked for')
    t.equal(heard.late, 0, 'no timing chunk after its audio')
    t.equal(heard.timing.length, 5, 'a piece per clause')
    const silence = Math.floor((heard.timing[0]?.sampleRate ?? 0) * (settings.sentenceSilence ?? 0))
    let end = 0
    let tiles = true
    let follows = true
    let inside = true
    const words: string[] = []
    heard.timing.forEach((chunk, i) => {
      if (i === 0 ? chunk.startSample !== 0 : chunk.startSample !== end && chunk.startSample !== end + silence) follows = false
      let at = chunk.startSample
      for (const p of chunk.phonemes) {
        if (p.startSample !== at || p.endSample <= p.startSample) tiles = false
        at = p.endSample
      }
      if (at !== chunk.endSample || chunk.visemes[0].startSample !== chunk.startSample || chunk.visemes.at(-1)?.endSample !== chunk.endSample) tiles = false
      for (const w of chunk.words) {
        if (w.startSample < chunk.startSample || w.endSample > chunk.endSample || w.endSample < w.startSample) inside = false
        t.equal(TEXT.slice(w.textStart, w.textEnd), w.word)
        words.push(w.word)
      }
      end = chunk.endSample
    })
    t.ok(tiles, 'phonemes and visemes tile each clause')
    t.ok(follows, 'clauses follow each other, sentences the silence')
    t.ok(inside, 'each word inside its clause')
    t.equal(end, heard.pcm.length / 2, 'the last phoneme ends at the answer\'s last sample')
    t.same(words, ['Hello', 'there', 'this', 'costs', '$5', 'A', 'second', 'sentence', 'with', '3', 'clauses', 'in', 'all'])
    const starts = heard.timing.flatMap(c => c.words.map(w => w.startSample))
    t.same(starts, [...starts].sort((a, b) => a - b), 'words in order')
    t.ok(heard.timing.flatMap(c => c.phonemes).some(p => p.phoneme.length > 1), 'phonemes named as espeak-ng names them (eɪ, tʃ …)')
  })
}
