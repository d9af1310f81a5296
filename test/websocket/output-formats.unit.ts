// output_format names, and the μ-law codec against G.711's table.

import t from 'tap'
import { muLawByte, muLawEncode, muLawSample } from '../../src/audio/mulaw.js'
import { createPcmEncoder } from '../../src/audio/pcm.js'
import { OUTPUT_FORMATS, parseOutputFormat } from '../../src/websocket/output-format.js'

t.test('the names the issue asks for map onto formats and encoder options', async t => {
  for (const name of ['pcm_16000', 'pcm_22050', 'pcm_24000', 'pcm_44100', 'mp3_22050_32', 'mp3_44100_128', 'ulaw_8000']) t.ok(OUTPUT_FORMATS.includes(name), name)
  t.same(parseOutputFormat('pcm_44100'), { name: 'pcm_44100', format: 'pcm', encoding: { rate: 44100 }, bytesPerSecond: 88200 })
  t.same(parseOutputFormat('ulaw_8000').encoding, { rate: 8000, ulaw: true })
  t.same(parseOutputFormat('mp3_22050_32').encoding, { rate: 22050, bitrate: 32 })
  t.equal(parseOutputFormat(undefined).name, 'mp3_44100_128', 'ElevenLabs\' default')
  t.throws(() => parseOutputFormat('opus_48000_64'), { message: /^Expected one of pcm_8000, .* for output_format but received "opus_48000_64" \(string\)$/ })
})

t.test('μ-law: G.711\'s codes for known samples, and decoding within its step', async t => {
  t.equal(muLawByte(0), 0xff)
  t.equal(muLawByte(-1), 0x7f)
  t.equal(muLawByte(32767), 0x80)
  t.equal(muLawByte(-32768), 0x00)
  for (let s = -32768; s <= 32767; s += 97) {
    const back = muLawSample(muLawByte(s))
    // The step doubles each segment: at most 1/16 of the magnitude plus the bias.
    t.ok(Math.abs(back - Math.max(-32635, Math.min(32635, s))) <= Math.abs(s) / 16 + 8, `${s} → ${back}`)
  }
  t.same([...muLawEncode(Int16Array.from([0, 1000, -1000]))], [muLawByte(0), muLawByte(1000), muLawByte(-1000)])
})

t.test('the pcm encoder at a rate asked for, and as μ-law', async t => {
  const tone = Int16Array.from({ length: 22050 }, (_, i) => Math.round(8000 * Math.sin(2 * Math.PI * 440 * i / 22050)))
  const run = async (options: Parameters<typeof createPcmEncoder>[1]): Promise<number> => {
    const encoder = await createPcmEncoder(22050, options)
    return encoder.push(tone).length + encoder.finish().length
  }
  t.equal(await run({ rate: 16000 }), 32000, 'one second at 16 kHz, 16-bit')
  t.equal(await run({ rate: 8000, ulaw: true }), 8000, 'one second at 8 kHz, one byte a sample')
  t.equal(await run({ rate: 22050 }), 44100, 'the voice\'s own rate passes through')
})
