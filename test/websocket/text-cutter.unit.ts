// The cut rules on constructed token streams: sentence ends at once, the
// schedule at word boundaries, flush, the idle cut, auto_mode; never inside a word.

import t from 'tap'
import { DEFAULT_SCHEDULE, TextCutter } from '../../src/websocket/text-cutter.js'

const feed = (cutter: TextCutter, tokens: string[]): string[] => tokens.flatMap(token => cutter.push(token))

t.test('a sentence is cut once the next text shows it ended', async t => {
  const cutter = new TextCutter({ schedule: DEFAULT_SCHEDULE, autoMode: false })
  t.same(feed(cutter, ['Hello', ' world', '.']), [], 'not yet: "world." may go on')
  t.same(cutter.push(' How'), ['Hello world.'])
  t.same(feed(cutter, [' are', ' you?', ' ']), ['How are you?'], 'a terminal mark and a space end it')
  t.equal(cutter.length, 0)
})

t.test('several sentences in one message are one piece', async t => {
  const cutter = new TextCutter({ schedule: DEFAULT_SCHEDULE, autoMode: false })
  t.same(cutter.push('One. Two! Three'), ['One. Two!'])
  t.same(cutter.flush(), ['Three'])
})

t.test('the schedule cuts at the last word boundary, its next entry for the next cut', async t => {
  const cutter = new TextCutter({ schedule: [50, 60], autoMode: false })
  const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(' ')
  const pieces = feed(cutter, words.map(w => `${w} `.replace(/ $/, '')).map((w, i) => i === 0 ? w : ` ${w}`))
  t.ok(pieces.length >= 1)
  t.ok(pieces[0].length >= 45 && pieces[0].length <= 55, `first piece ${pieces[0].length} characters`)
  for (const piece of pieces) t.ok(words.includes(piece.split(' ').at(-1) as string), `"${piece}" ends with a whole word`)
  t.ok(pieces.join(' ').split(' ').every(w => words.includes(w)), 'no word was split')
})

t.test('try_trigger_generation cuts from 50 characters on', async t => {
  const cutter = new TextCutter({ schedule: [500], autoMode: false })
  t.same(cutter.push('short text ', true), [])
  t.same(cutter.push('and now enough characters to pass the fifty mark ok', true), ['short text and now enough characters to pass the fifty mark'])
  t.same(cutter.flush(), ['ok'])
})

t.test('the idle cut stops before a word that may still grow, unless the text ended a sentence', async t => {
  const cutter = new TextCutter({ schedule: DEFAULT_SCHEDULE, autoMode: false })
  cutter.push('no sentence end he')
  t.same(cutter.idle(), ['no sentence end'])
  t.same(cutter.idle(), [], 'a lone word waits')
  cutter.push('re.')
  t.same(cutter.idle(), ['here.'], 'terminal punctuation ends it')
})

t.test('auto_mode cuts each message at its last word boundary', async t => {
  const cutter = new TextCutter({ schedule: DEFAULT_SCHEDULE, autoMode: true })
  t.same(cutter.push('a phrase sent whole '), ['a phrase sent whole'])
  t.same(cutter.push('half wor'), ['half'])
  t.same(cutter.push('d '), ['word'])
})

t.test('no cut inside inline phonemes, nor, for SSML, inside a tag or an open element', async t => {
  const cutter = new TextCutter({ schedule: [50], autoMode: true })
  t.same(cutter.push('Say [[ bˈæt'), ['Say'], 'a word boundary inside [[ ]] is no cut: up to the block')
  t.same(cutter.push('mæn ]] now '), ['[[ bˈætmæn ]] now'])
  const ssml = new TextCutter({ schedule: [50], autoMode: true, ssml: true })
  t.same(ssml.push('Hi <sub alias="Doctor">Dr. '), ['Hi'], 'not inside <sub>, though "Dr. " ends a sentence')
  t.same(ssml.push('Who</sub> is <break '), ['<sub alias="Doctor">Dr. Who</sub> is'], 'nor inside a tag')
  t.same(ssml.push('time="1s"/> here. '), ['<break time="1s"/> here.'])
  const whole = new TextCutter({ schedule: [50], autoMode: true, ssml: true })
  t.same(whole.push('<speak>One. Two. '), [], 'a document sent whole is one piece')
  t.same(whole.push('</speak> '), ['<speak>One. Two. </speak>'])
  t.same(new TextCutter({ schedule: [50], autoMode: true }).push('a \\[[ b c '), ['a \\[[ b c'], 'an escaped [[ opens no block')
})
