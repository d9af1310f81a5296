// The normalizer's rules, each by example; ordinary prose unchanged (the
// corpus's plain replies and generated sentences); and the map back to the
// original text on the whole corpus, emoji, accents and markdown included.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { normalizeForSpeech, type SpokenText } from '../../src/text/normalize/index.js'
import { applyEdits } from '../../src/text/normalize/offsets.js'

const en = (text: string): SpokenText => normalizeForSpeech(text, { language: 'en-us' })
const corpus = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'test/fixtures/normalizer/corpus.json'), 'utf8')) as Array<{ category: string, text: string, expected: string }>

/** The original text behind the spoken word at [start, end). */
function source (spoken: SpokenText, original: string, start: number, end: number): string {
  const [from, to] = spoken.toOriginal(start, end)
  return original.slice(from, to)
}

function words (text: string): Array<{ word: string, start: number, end: number }> {
  return [...text.matchAll(/[\p{L}\p{N}'’]+/gu)].map(m => ({ word: m[0], start: m.index, end: m.index + m[0].length }))
}

const EXAMPLES: Record<string, Array<[string, string]>> = {
  markdown: [
    ['**Great** question!', 'Great question!'],
    ['This is *really* important.', 'This is really important.'],
    ['Here is the __key__ point.', 'Here is the key point.'],
    ['It is ~~gone~~ back.', 'It is gone back.'],
    ['# Getting started\nInstall it.', 'Getting started.\nInstall it.'],
    ['## Done! ##', 'Done!'],
    ['- Apples\n- Pears', 'Apples.\nPears.'],
    ['* Fast\n+ Cheap', 'Fast.\nCheap.'],
    ['Read [the guide](https://example.com/guide "Guide") first.', 'Read the guide first.'],
    ['See ![a diagram](img/flow.png).', 'See a diagram.'],
    ['Run:\n```bash\nnpm test\n```', 'Run:\n\nnpm test\n'],
    ['2 * 3 * 4 is 24', '2 * 3 * 4 is 24']
  ],
  emoji: [
    ['Hello 👋 there', 'Hello there'],
    ['🚀 Launch', 'Launch'],
    ['Done ✅.', 'Done.'],
    ['Fine 👍🏽👍🏽 by me', 'Fine by me'],
    ['Family 👨‍👩‍👧 time', 'Family time'],
    ['Flag 🇺🇸 up', 'Flag up'],
    ['#1 and © 2024', 'number 1 and © 2024']
  ],
  urls: [
    ['Visit https://example.com.', 'Visit example.com.'],
    ['See https://www.example.org/a/b?c=d#e now', 'See example.org now'],
    ['At http://user@host.example.net:8080/x, yes', 'At host.example.net, yes'],
    ['Mail bob@example.com', 'Mail bob@example.com']
  ],
  money: [
    ['$5', '5 dollars'],
    ['$1', '1 dollar'],
    ['$5.99', '5 dollars 99 cents'],
    ['$1.01', '1 dollar 1 cent'],
    ['$0.50', '50 cents'],
    ['$3.00', '3 dollars'],
    ['$1,200.', '1,200 dollars.'],
    ['$2.5 million', '2.5 million dollars'],
    ['$10k', '10 thousand dollars'],
    ['$3B', '3 billion dollars'],
    ['€3.50', '3 euros 50 cents'],
    ['£900', '900 pounds'],
    ['£2.05', '2 pounds 5 pence'],
    ['¥500', '500 yen'],
    ['$20/month', '20 dollars per month'],
    ['25 USD', '25 US dollars'],
    ['20 EUR', '20 euros']
  ],
  units: [
    ['5kg', '5 kilograms'],
    ['1 kg', '1 kilogram'],
    ['60 km/h', '60 kilometers per hour'],
    ['10 km', '10 kilometers'],
    ['65 mph', '65 miles per hour'],
    ['25 min', '25 minutes'],
    ['20°C', '20 degrees Celsius'],
    ['350°F', '350 degrees Fahrenheit'],
    ['8 GB', '8 gigabytes'],
    ['6 ft', '6 feet'],
    ['1 ft', '1 foot'],
    ['2 hrs', '2 hours'],
    ['40 ms', '40 milliseconds'],
    ['3 lbs', '3 lbs'],
    ['I am in', 'I am in'],
    ['5 MB/s', '5 MB/s']
  ],
  times: [
    ['at 3:00', "at 3 o'clock"],
    ['at 3:05 pm', 'at 3 oh 5 pm'],
    ['at 9:00 am', 'at 9 am'],
    ['at 15:00', 'at 15 hundred'],
    ['at 0:00', 'at midnight'],
    ['at 3:30 pm', 'at 3:30 pm'],
    ['ratio 3:1', 'ratio 3:1'],
    ['at 10:00:30', 'at 10:00:30'],
    ['at 25:00', 'at 25:00']
  ],
  dates: [
    ['on 2024-03-15', 'on March 15th, 2024'],
    ['on 2024-13-15', 'on 2024-13-15'],
    ['on 07/04/1776', 'on July 4th, 1776'],
    ['on 25/12/2024', 'on December 25th, 2024'],
    ['on March 3', 'on March 3rd'],
    ['on June 21, 2025', 'on June 21st, 2025'],
    ['due Jan. 5', 'due January 5th'],
    ['on Dec 22', 'on December 22nd'],
    ['on March 3rd', 'on March 3rd'],
    ['in March 2024', 'in March 2024'],
    ['the 1990s', 'the 19 nineties'],
    ['the 2000s', 'the 2 thousands'],
    ["the '80s", 'the eighties'],
    ['the 80s', 'the eighties']
  ],
  numbers: [
    ['5-10 minutes', '5 to 10 minutes'],
    ['1939–1945', '1939 to 1945'],
    ['10-5', '10-5'],
    ['555-1234', '555-1234'],
    ['24/7', '24 7'],
    ['1/2 cup', 'one half cup'],
    ['~5', 'about 5'],
    ['#1', 'number 1'],
    ['2x faster', '2 times faster'],
    ['1.5M users', '1.5 million users'],
    ['a 7B model', 'a 7 billion model'],
    ['4K screens', '4K screens']
  ],
  abbreviations: [
    ['Dr. Smith', 'Doctor Smith'],
    ['Mrs. Brown', 'Missus Brown'],
    ['St. Louis', 'Saint Louis'],
    ['Main St. Then', 'Main St. Then'],
    ['Python vs. Go', 'Python versus Go'],
    ['a fruit, e.g., an apple', 'a fruit, for example, an apple'],
    ['fruit, e.g. apples', 'fruit, e.g. apples'],
    ['one, i.e. this', 'one, that is this'],
    ['Fig. 3', 'Figure 3'],
    ['at No. 5', 'at number 5'],
    ['King Jr. spoke', 'King Junior spoke'],
    ['Martin Luther King Jr.', 'Martin Luther King Junior.'],
    ['a Ph.D. in it', 'a PhD in it'],
    ['tea w/ milk', 'tea with milk'],
    ['btw, yes', 'by the way, yes'],
    ['apples, etc.', 'apples, etc.']
  ]
}

for (const [rule, examples] of Object.entries(EXAMPLES)) {
  t.test(`${rule}: examples`, async t => {
    for (const [text, spoken] of examples) t.equal(en(text).text, spoken, JSON.stringify(text))
  })
}

t.test('emoji: name leaves them to espeak-ng', async t => {
  t.equal(normalizeForSpeech('Hello 👋 there', { language: 'en-us', emoji: 'name' }).text, 'Hello 👋 there')
})

t.test('a text of emoji alone is kept as sent rather than emptied', async t => {
  const spoken = en('👍 🎉')
  t.equal(spoken.text, '👍 🎉')
  t.same(spoken.toOriginal(0, 2), [0, 2])
})

t.test('languages other than English pass through unchanged', async t => {
  for (const language of ['de', 'pt-br', 'fr-fr', '', 'eng-x']) t.equal(normalizeForSpeech('Es kostet $5 **heute** 🙂', { language }).text, 'Es kostet $5 **heute** 🙂', language)
  for (const language of ['en', 'en-us', 'en-gb-x-rp', 'EN_US']) t.not(normalizeForSpeech('$5', { language }).text, '$5', language)
})

t.test('plain prose comes back as the same string', async t => {
  for (const item of corpus.filter(i => i.category === 'plain')) t.equal(en(item.text).text, item.text, item.text)
  // Sentences of words, commas, and sentence ends: nothing for any rule to see.
  // Chat abbreviations written as words are not prose (and are rewritten).
  const abbreviations = new Set(['vs', 'aka', 'btw', 'BTW', 'IIRC'])
  // Latin-1's letters: À-ÿ without × and ÷, which are signs the rules read.
  const word = fc.stringMatching(/^[A-Za-zÀ-ÖØ-öø-ÿ]{1,12}$/).filter(w => !abbreviations.has(w))
  const sentence = fc.tuple(fc.array(word, { minLength: 1, maxLength: 12 }), fc.constantFrom('.', '!', '?', ',', ';', ':', ''))
    .map(([ws, end]) => ws.join(' ') + end)
  fc.assert(fc.property(fc.array(sentence, { minLength: 1, maxLength: 5 }), sentences => {
    const text = sentences.join(' ')
    return en(text).text === text
  }), { numRuns: 500 })
})

t.test('a word made from "$5" maps back to the whole "$5"', async t => {
  const original = 'It costs $5 today.'
  const spoken = en(original)
  t.equal(spoken.text, 'It costs 5 dollars today.')
  t.equal(source(spoken, original, 9, 10), '$5', '"5"')
  t.equal(source(spoken, original, 11, 18), '$5', '"dollars"')
  t.equal(source(spoken, original, 9, 18), '$5', '"5 dollars"')
  t.equal(source(spoken, original, 0, 2), 'It', 'untouched text maps to itself')
  t.equal(source(spoken, original, 19, 24), 'today', 'after the edit, shifted back')
  t.equal(source(spoken, original, 3, 18), 'costs $5', 'a range over both: the union')
  t.same(spoken.toOriginal(25, 25), [18, 18], 'the end maps to the end')
})

t.test('words beside markdown and emoji map to themselves, not to the markers', async t => {
  const original = '**Café** déjà vu 👋🏽 naïve [link](https://x.example/ü)!'
  const spoken = en(original)
  t.equal(spoken.text, 'Café déjà vu naïve link!')
  const mapped = words(spoken.text).map(w => source(spoken, original, w.start, w.end))
  t.same(mapped, ['Café', 'déjà', 'vu', 'naïve', 'link'])
})

t.test('UTF-16 offsets: text after an emoji (two code units) maps exactly', async t => {
  const original = 'Go 🚀 at 3:00 sharp'
  const spoken = en(original)
  t.equal(spoken.text, "Go at 3 o'clock sharp")
  const [from, to] = spoken.toOriginal(spoken.text.indexOf('sharp'), spoken.text.length)
  t.equal(original.slice(from, to), 'sharp')
  t.equal(source(spoken, original, 6, 7), '3:00', '"3" came from "3:00"')
})

t.test('the map round-trips every word of the corpus', async t => {
  for (const item of corpus) {
    const spoken = en(item.text)
    let last = 0
    for (const w of words(spoken.text)) {
      const [from, to] = spoken.toOriginal(w.start, w.end)
      const slice = item.text.slice(from, to)
      t.ok(from >= last && to > from && to <= item.text.length, `${JSON.stringify(w.word)} in ${JSON.stringify(item.text)}: in order, inside, not empty`)
      last = from
      // A word the rules did not write is found as written; a word they
      // wrote maps to whole tokens as written: no space at its edges, no
      // letter or digit cut off on either side.
      const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c)
      if (slice !== w.word) {
        t.ok(slice === slice.trim() && !isWordChar(item.text[from - 1]) && !isWordChar(item.text[to]), `${JSON.stringify(w.word)} ← ${JSON.stringify(slice)}`)
      }
      // Never half a surrogate pair.
      t.notOk(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(slice), `${JSON.stringify(slice)} cuts no character`)
    }
    if (spoken.text === item.text) t.same(spoken.toOriginal(0, item.text.length), [0, item.text.length])
  }
})

t.test('edits: a deletion maps nowhere, an insertion to an empty range where it stands', async t => {
  const { text, map } = applyEdits('ab*cd*ef', [{ start: 2, end: 3, text: '' }, { start: 5, end: 6, text: '' }, { start: 8, end: 8, text: '.' }])
  t.equal(text, 'abcdef.')
  t.same(map.toSource(2, 4), [3, 5], '"cd" without its stars')
  t.same(map.toSource(6, 7), [8, 8], 'the full stop added at the end')
  t.same(map.toSource(0, 7), [0, 8])
  t.throws(() => applyEdits('abc', [{ start: 1, end: 2, text: '' }, { start: 0, end: 1, text: '' }]), RangeError)
})

t.test('bounded: a long text of every shape normalizes in one pass, its growth a small factor', async t => {
  const unit = 'Dr. Smith paid $5.99 on 2024-03-15 at 3:00 for 5kg 🙂 **now** https://example.com/x. '
  const text = unit.repeat(60)
  const spoken = en(text)
  t.ok(spoken.text.length < text.length * 2, `${spoken.text.length} from ${text.length}`)
  t.same(spoken.toOriginal(0, spoken.text.length), [0, text.length])
})

t.test('any text: no throw, and every range maps inside the original, in order', async () => {
  const pieces = fc.constantFrom('**', '*', '~~', '# ', '- ', '[a](b)', '$5', '€3.50', '5kg', '3:00', '2024-03-15', 'March 3', '1990s', '5-10', '~5', '#1', 'Dr. ', 'e.g.,', '👋', '👍🏽', '🇺🇸', '\u200D', '\uFE0F', '\uD83D', 'https://x.example/a', ' ', '\n', '.', 'é', 'word')
  const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.array(pieces, { maxLength: 30 }).map(p => p.join('')))
  fc.assert(fc.property(text, fc.nat(), fc.nat(), (original, a, b) => {
    const spoken = en(original)
    const [start, end] = [a % (spoken.text.length + 1), b % (spoken.text.length + 1)].sort((x, y) => x - y)
    const [from, to] = spoken.toOriginal(start, end)
    const [whole0, whole1] = spoken.toOriginal(0, spoken.text.length)
    const inside = from >= 0 && from <= to && to <= original.length
    // An empty range (a point) may sit past the last word, where deleted text ends the original.
    return inside && (start === end || (whole0 <= from && to <= whole1))
  }), { numRuns: 2000 })
})
