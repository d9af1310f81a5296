// What was heard (heard.ts), on a clock the test holds: the position is the
// client's when it reports one, else the time since the first audio left
// less the jitter buffer, never past the audio sent; the last word is the
// last whole word by then; pieces join with a space; the registry keeps
// each tenant's answers apart and forgets the oldest past its bound.

import t from 'tap'
import { HeardLog, HeardRegistry, JITTER_BUFFER_MS } from '../../src/synthesis/heard.js'

const RATE = 1000
const word = (w: string, textStart: number, startSample: number, endSample: number): { word: string, textStart: number, textEnd: number, startSample: number, endSample: number } =>
  ({ word: w, textStart, textEnd: textStart + w.length, startSample, endSample })

t.test('the reported position, the estimate, and the audio sent bound them', async t => {
  let now = 0
  // 2 bytes a millisecond.
  const log = new HeardLog(() => now, 2000)
  const first = log.addText('Hello there.')
  log.addWords(first, [word('Hello', 0, 0, 400), word('there', 6, 450, 900)], RATE)
  const second = log.addText('How are you?')
  t.equal(second, 13, 'pieces join with one space')
  log.addWords(second, [word('How', 0, 0, 200), word('are', 4, 200, 400), word('you', 8, 400, 700)], RATE, 1000)
  t.same(log.heard(), { audio_played_ms: 0, audio_sent_ms: 0, last_word: null, text_spoken: '', text_remaining: 'Hello there. How are you?' }, 'nothing sent: nothing heard')
  now = 100
  log.sent(2000, 0)
  log.sent(1000, 0)
  now = 100 + JITTER_BUFFER_MS + 950
  t.match(log.heard(), { audio_played_ms: 950, audio_sent_ms: 1500, last_word: 'there', text_spoken: 'Hello there.', text_remaining: 'How are you?' }, 'the estimate: since the first audio, less the jitter buffer')
  now = 100 + JITTER_BUFFER_MS + 5000
  // The second piece starts at 1000 ms: "How" ends at 1200, "are" at 1400, "you" at 1700.
  t.match(log.heard(), { audio_played_ms: 1500, last_word: 'are', text_spoken: 'Hello there. How are', text_remaining: 'you?' }, 'never past the audio sent')
  log.sent(1400, 0)
  t.match(log.heard(), { audio_played_ms: 2200, last_word: 'you', text_spoken: 'Hello there. How are you?', text_remaining: '' })
  t.match(log.heard(1399), { audio_played_ms: 1399, last_word: 'How' }, 'the client\'s position decides when given')
  t.match(log.heard(1400), { last_word: 'are' }, 'a word heard to its last sample counts')
})

t.test('compressed audio is counted by the timing it reaches', async t => {
  const log = new HeardLog(() => 0)
  log.addWords(log.addText('One two.'), [word('One', 0, 0, 300), word('two', 4, 300, 600)], RATE)
  log.sent(99, 600)
  log.sent(5, 300)
  t.match(log.heard(10_000), { audio_sent_ms: 600, last_word: 'two', text_spoken: 'One two.', text_remaining: '' })
})

t.test('the registry: per tenant, the oldest forgotten past its bound', async t => {
  const registry = new HeardRegistry(() => 0, 2)
  const a = registry.open('key-a', 'r1')
  t.equal(registry.find('key-a', 'r1'), a)
  t.equal(registry.find('key-b', 'r1'), undefined, 'another key cannot read it')
  registry.open('key-a', 'r2')
  registry.open('key-a', 'r3')
  t.equal(registry.find('key-a', 'r1'), undefined, 'the oldest went')
  t.ok(registry.find('key-a', 'r3') !== undefined)
})
