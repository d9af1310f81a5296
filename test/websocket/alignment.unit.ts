// Character alignment from word timing, on constructed timing.

import t from 'tap'
import { buildAlignment, coveredEnd } from '../../src/websocket/alignment.js'
import type { WordTiming } from '../../src/synthesis/timing.js'

const RATE = 1000 // one sample a millisecond

function word (text: string, w: string, from: number, startSample: number, endSample: number): WordTiming {
  const textStart = text.indexOf(w, from)
  return { word: w, textStart, textEnd: textStart + w.length, startSample, endSample }
}

t.test('a word\'s span is spread over its characters, the pause over what lies between', async t => {
  const text = 'Hi all.'
  const words = [word(text, 'Hi', 0, 100, 300), word(text, 'all', 0, 400, 700)]
  const a = buildAlignment(text, words, RATE)
  t.same(a.chars, ['H', 'i', ' ', 'a', 'l', 'l', '.'])
  t.same(a.charStartTimesMs, [100, 200, 300, 400, 500, 600, 700])
  t.same(a.charDurationsMs, [100, 100, 100, 100, 100, 100, 0])
})

t.test('times are whole milliseconds, each character starting where the last ended', async t => {
  const text = 'abc'
  const a = buildAlignment(text, [word(text, 'abc', 0, 0, 22050)], 22050)
  t.same(a.charStartTimesMs, [0, 333, 667])
  t.same(a.charDurationsMs, [333, 334, 333])
  const ends = a.charStartTimesMs.map((s, i) => s + a.charDurationsMs[i])
  t.same(ends.slice(0, -1), a.charStartTimesMs.slice(1))
})

t.test('a range and an origin: one sentence of a piece, times from where its audio starts', async t => {
  const text = 'One. Two three.'
  const words = [word(text, 'Two', 0, 1000, 1300), word(text, 'three', 0, 1300, 1800)]
  const from = text.indexOf('Two')
  const a = buildAlignment(text, words, RATE, from, text.length, 1000)
  t.equal(a.chars.join(''), 'Two three.')
  t.equal(a.charStartTimesMs[0], 0)
  t.equal(a.charStartTimesMs.at(-1), 800)
})

t.test('code points, not UTF-16 halves, are characters', async t => {
  const text = 'é😀x'
  const a = buildAlignment(text, [{ word: text, textStart: 0, textEnd: text.length, startSample: 0, endSample: 300 }], RATE)
  t.same(a.chars, ['é', '😀', 'x'])
})

t.test('a timing chunk covers its words and the punctuation and space after them', async t => {
  const text = 'Hello there. Next one'
  t.equal(coveredEnd(text, [word(text, 'Hello', 0, 0, 1), word(text, 'there', 0, 1, 2)]), text.indexOf('Next'))
  t.equal(coveredEnd(text, [word(text, 'one', 0, 0, 1)]), text.length)
})
