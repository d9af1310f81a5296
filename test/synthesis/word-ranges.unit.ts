// Words from the spoken text to the text as sent, and from a sentence's
// phonemes to its pieces' entries, on constructed words: ranges through the
// trim and the normalizer, one word per written token however many spoken
// words it made, inserted text joining the word before, a word cut by a
// piece's edge in both pieces; and a word's samples are its entries'.

import t from 'tap'
import { normalizeForSpeech, unchanged } from '../../src/text/normalize/index.js'
import { wordEvents } from '../../src/synthesis/timing.js'
import { originalWords, pieceWords } from '../../src/synthesis/timing/words.js'

const word = (text: string, w: string, phonemeStart: number, phonemeEnd: number, from = 0) => {
  const textStart = text.indexOf(w, from)
  return { phonemeStart, phonemeEnd, textStart, textEnd: textStart + w.length }
}

t.test('through the normalizer: "$5" spoken as two words is one word', async t => {
  const spoken = normalizeForSpeech('It costs $5 today.', { language: 'en-us' })
  t.equal(spoken.text, 'It costs 5 dollars today.')
  const words = originalWords([
    word(spoken.text, 'It', 0, 2), word(spoken.text, 'costs', 3, 8), word(spoken.text, '5', 9, 13), word(spoken.text, 'dollars', 14, 20), word(spoken.text, 'today', 21, 26)
  ], spoken)
  t.same(words.map(w => 'It costs $5 today.'.slice(w.textStart, w.textEnd)), ['It', 'costs', '$5', 'today'])
  t.same(words[2], { phonemeStart: 9, phonemeEnd: 20, textStart: 9, textEnd: 11 }, 'its phonemes are both words\'')
})

t.test('a word made only of inserted text joins the word before it, or the next when first', async t => {
  const map = { text: 'a b c', toOriginal: (start: number, end: number): [number, number] => start === 2 ? [1, 1] : [start, end] }
  const words = originalWords([word(map.text, 'a', 0, 1), word(map.text, 'b', 2, 3), word(map.text, 'c', 4, 5)], map)
  t.same(words.map(w => [w.textStart, w.phonemeStart, w.phonemeEnd]), [[0, 0, 3], [4, 4, 5]])
  const first = { text: 'a b', toOriginal: (start: number, end: number): [number, number] => start === 0 ? [0, 0] : [start, end] }
  t.same(originalWords([word(first.text, 'a', 0, 1), word(first.text, 'b', 2, 3)], first).map(w => [w.textStart, w.phonemeStart, w.phonemeEnd]), [[2, 0, 3]])
})

t.test('unchanged text maps to itself', async t => {
  const words = [word('one two', 'one', 0, 3), word('one two', 'two', 4, 7)]
  t.same(originalWords(words, unchanged('one two')), words)
})

t.test('a piece\'s words are its entries (BOS is entry 0); a word cut by its edge is in both pieces', async t => {
  const words = [{ phonemeStart: 0, phonemeEnd: 3, textStart: 0, textEnd: 2 }, { phonemeStart: 4, phonemeEnd: 12, textStart: 3, textEnd: 7 }]
  t.same(pieceWords(words, 0, 8), [{ textStart: 0, textEnd: 2, entryStart: 1, entryEnd: 4 }, { textStart: 3, textEnd: 7, entryStart: 5, entryEnd: 9 }])
  t.same(pieceWords(words, 8, 6), [{ textStart: 3, textEnd: 7, entryStart: 1, entryEnd: 5 }])
})

t.test('a word\'s samples are those of its entries, from where the piece starts', async t => {
  const piece = { phonemes: Uint32Array.of(0x5e, 0x61, 0x20, 0x62, 0x24), samples: Uint32Array.of(10, 20, 5, 30, 8), words: [
    { word: 'a', textStart: 0, textEnd: 1, entryStart: 1, entryEnd: 2 }, { word: 'b', textStart: 2, textEnd: 3, entryStart: 3, entryEnd: 4 }
  ] }
  t.same(wordEvents(piece, 100), [
    { word: 'a', textStart: 0, textEnd: 1, startSample: 110, endSample: 130 },
    { word: 'b', textStart: 2, textEnd: 3, startSample: 135, endSample: 165 }
  ], 'the space between them is in neither')
})
