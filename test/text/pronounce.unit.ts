// The text side of pronunciation, pure: inline phonemes cut as piper1-gpl
// cuts them (and the escape), the SSML subset read into parts that map back
// to the text as sent, each say-as kind, refusals with line and column, and
// lexicons (PLS and JSON) matched by whole word, PLS case rules and across
// white space.

import fc from 'fast-check'
import t from 'tap'
import { isChorusError } from '../../src/errors.js'
import { fuzzParameters } from '../helpers/fuzz.js'
import { pronounce, type PronounceOptions } from '../../src/text/pronounce.js'
import type { ScriptPart } from '../../src/text/script.js'
import { LexiconMatcher } from '../../src/text/lexicon/matcher.js'
import { parsePls } from '../../src/text/lexicon/pls.js'
import { parseJsonLexicon } from '../../src/text/lexicon/json-map.js'

const PLAIN: PronounceOptions = { ssml: false, trim: false, normalize: false, language: 'en-us' }
const SSML: PronounceOptions = { ...PLAIN, ssml: true }

/** Each part as [kind, what is spoken, the text as sent it maps to]. */
function shown (source: string, parts: ScriptPart[]): Array<[string, string | number, string]> {
  return parts.map(p => {
    if (p.kind === 'text') {
      const [a, b] = p.spoken.toOriginal(0, p.spoken.text.length)
      return ['text', p.spoken.text, source.slice(a, b)]
    }
    if (p.kind === 'phonemes') return ['phonemes', p.ipa, source.slice(p.start, p.end)]
    return p.kind === 'break' ? ['break', p.seconds, ''] : ['boundary', '', '']
  })
}

t.test('inline phonemes: [[ ]] cut out as piper1-gpl cuts them, \\[[ is a literal [[', async t => {
  const text = 'Say [[ bˈætmæn ]] now, [[ ]] and \\[[x]] [[ unclosed'
  t.same(shown(text, pronounce(text, PLAIN)), [
    ['text', 'Say ', 'Say '],
    ['phonemes', 'bˈætmæn', 'bˈætmæn'],
    // An empty block says nothing: the text around it is one part; the escape's backslash is not spoken.
    ['text', ' now,  and [[x]] [[ unclosed', ' now, [[ ]] and \\[[x]] [[ unclosed']
  ])
  const lines = 'a [[ b\nc ]] d'
  t.same(shown(lines, pronounce(lines, PLAIN)).map(p => p[0]), ['text'], 'a block never spans a line break')
})

t.test('SSML: each element of the subset, mapped to the text as sent', async t => {
  const ssml = '<speak>Hi <break time="250ms"/><s>One <sub alias="Doctor">Dr.</sub></s>' +
    '<p><prosody rate="slow" pitch="+2st">two</prosody> <phoneme alphabet="ipa" ph="təmˈeɪtoʊ">tomato</phoneme></p>' +
    '<lang xml:lang="de">Tag</lang> <voice name="other">x</voice><break strength="strong"/></speak>'
  const parts = pronounce(ssml, SSML)
  t.same(shown(ssml, parts), [
    ['text', 'Hi ', 'Hi '],
    ['break', 0.25, ''],
    ['boundary', '', ''],
    ['text', 'One Doctor', 'One <sub alias="Doctor">Dr.'],
    ['boundary', '', ''],
    ['boundary', '', ''],
    ['text', 'two', 'two'],
    ['text', ' ', ' '],
    ['phonemes', 'təmˈeɪtoʊ', 'tomato'],
    ['boundary', '', ''],
    ['text', 'Tag', 'Tag'],
    ['text', ' ', ' '],
    ['text', 'x', 'x'],
    ['break', 0.75, '']
  ])
  const styles = parts.flatMap(p => p.kind === 'text' ? [p.style] : [])
  t.same(styles[2], { rate: 0.75 }, 'prosody rate slow: three quarters speed (pitch is ignored)')
  t.same(styles[4], { rate: 1, language: 'de' }, '<lang>')
  t.same(styles[6], { rate: 1, voice: 'other' }, '<voice>')
})

t.test('SSML without <speak> (a WebSocket piece, "ssml": true): read as its content, offsets those of the text as sent', async t => {
  const text = 'Hi <break time="1s"/> <sub alias="Doctor">Dr.</sub> Who'
  t.same(shown(text, pronounce(text, SSML)), [['text', 'Hi ', 'Hi '], ['break', 1, ''], ['text', ' Doctor Who', ' <sub alias="Doctor">Dr.</sub> Who']])
})

t.test('say-as: each kind', async t => {
  const cases: Array<[string, string, string, string?]> = [
    ['characters', 'NPC', 'N P C'], ['spell-out', 'ab', 'a b'], ['cardinal', '1,234', '1234'], ['number', '-3.5', '-3.5'],
    ['ordinal', '3', '3rd'], ['ordinal', '22nd', '22nd'], ['digits', '1234', '1 2 3 4'],
    ['date', '2024-03-15', 'March 15th, 2024'], ['date', '15/03/2024', 'March 15th, 2024', 'dmy'], ['date', '3/15', 'March 15th', 'md'],
    ['time', '3:05pm', '3 oh 5 pm'], ['time', '15:00', '15 hundred'], ['time', '3:30', '3:30'],
    ['telephone', '+1 555-0100', 'plus 1, 5 5 5, 0 1 0 0']
  ]
  for (const [kind, content, spoken, format] of cases) {
    const ssml = `<speak><say-as interpret-as="${kind}"${format === undefined ? '' : ` format="${format}"`}>${content}</say-as></speak>`
    const [part] = pronounce(ssml, SSML)
    t.same(part.kind === 'text' ? [part.spoken.text, ssml.slice(...part.spoken.toOriginal(0, part.spoken.text.length))] : [], [spoken, content], `${kind} ${content}`)
  }
  const german = pronounce('<speak xml:lang="de"><say-as interpret-as="ordinal">3</say-as></speak>', SSML)[0]
  t.equal(german.kind === 'text' ? german.spoken.text : '', '3', 'English words only for English')
})

t.test('bad SSML: 400 with the line, the column and what was expected, before anything is spoken', async t => {
  const refused: Array<[string, RegExp]> = [
    ['<speak>\n  <emphasis>x</emphasis></speak>', /^Expected one of the elements speak, p, s, break, .* for an SSML element but received <emphasis> at line 2, column 3$/],
    ['<speak>a</speek>', /^Expected well-formed SSML for text but received .* at line 1, column 16$/],
    ['<speak><break time="11s"/></speak>', /^Expected a time from 0s to 10s .* for <break time> but received "11s" at line 1, column 8$/],
    ['<speak><prosody rate="fastest">x</prosody></speak>', /for <prosody rate> but received "fastest"/],
    ['<speak><say-as interpret-as="money">5</say-as></speak>', /^Expected one of characters, .* for <say-as interpret-as> but received "money"/],
    ['<speak><say-as interpret-as="date">soon</say-as></speak>', /for <say-as interpret-as="date"> but received "soon"/],
    ['<speak><phoneme alphabet="x-sampa" ph="a">x</phoneme></speak>', /^Expected alphabet="ipa"/],
    ['<speak><sub>x</sub></speak>', /^Expected an alias attribute/],
    ['<speak><sub alias="a"><break/></sub></speak>', /^Expected text only for <sub>/],
    ['<speak><voice gender="female">x</voice></speak>', /^Expected only name for <voice> but received the attribute gender/],
    ['<speak/><x/>', /documents may contain only one root at line 1, column 11$/],
    ['Hi <b>x</b>', /^Expected one of the elements .* but received <b> at line 1, column 4$/],
    ['<speak><![CDATA[x]]></speak>', /CDATA/]
  ]
  for (const [ssml, message] of refused) {
    t.throws(() => pronounce(ssml, SSML), { code: 'ERR_INVALID_SSML', status: 400, message }, ssml)
  }
})

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>Xyrith</grapheme><phoneme>zˈɪɹɪθ</phoneme></lexeme>
  <lexeme><grapheme>NPC</grapheme><alias>N P C</alias></lexeme>
  <lexeme><grapheme>Caer Wyvern</grapheme><phoneme>kˈaɪɚ wˈaɪvɚn</phoneme></lexeme>
  <lexeme><grapheme>guild</grapheme><phoneme>ɡˈɪld</phoneme><phoneme prefer="true">ɡˈiːld</phoneme></lexeme>
</lexicon>`

t.test('lexicons: whole words, PLS case rules, multi-word graphemes, precedence', async t => {
  const lexicon = { ...parsePls(PLS), name: 'lexicon "game"' }
  t.equal(lexicon.language, 'en-US')
  const matcher = new LexiconMatcher([lexicon, parseJsonLexicon({ xyrith: '/x/', npc: 'not this one' })])
  const text = 'Xyrith, XYRITH and xyriths met an NPC in Caer\n  Wyvern; the Guild of npc.'
  const found = matcher.find(text).map(m => [text.slice(m.start, m.end), m.entry.ipa ?? m.entry.alias, m.lexicon])
  t.same(found, [
    ['Xyrith', 'zˈɪɹɪθ', 'lexicon "game"'],
    ['XYRITH', 'x', 'lexicon'],
    ['NPC', 'N P C', 'lexicon "game"'],
    ['Caer\n  Wyvern', 'kˈaɪɚ wˈaɪvɚn', 'lexicon "game"'],
    ['Guild', 'ɡˈiːld', 'lexicon "game"'],
    ['npc', 'not this one', 'lexicon']
  ], 'exact case first; a lowercase grapheme matches any case; "xyriths" is another word; prefer="true" wins')
  const [part] = pronounce('An NPC named Xyrith.', { ...PLAIN, lexicon: () => matcher })
  t.equal(part.kind === 'text' ? part.spoken.text : '', 'An N P C named Xyrith.', 'an alias is written in')
  t.same(part.kind === 'text' ? part.overrides.map(o => [o.start, o.end, o.ipa]) : [], [[15, 21, 'zˈɪɹɪθ']], 'a phoneme entry overrides the word where the alias left it')
})

t.test('lexicons: refusals name the entry, its line and column', async t => {
  t.throws(() => parsePls('<lexicon alphabet="ipa"/>'), { code: 'ERR_INVALID_LEXICON', message: /^Expected an xml:lang language tag \(en-US\) for <lexicon> but received none at line 1, column 1$/ })
  t.throws(() => parsePls(PLS.replace('<alias>N P C</alias>', '')), { message: /^Expected a <phoneme> or an <alias> for lexeme 2 \("NPC"\) but received none at line 4, column 3$/ })
  t.throws(() => parsePls(PLS.replace('alphabet="ipa"', 'alphabet="x-sampa"')), { message: /^Expected alphabet="ipa" .* for <phoneme> of lexeme 1 \("Xyrith"\)/ })
  t.throws(() => parseJsonLexicon({ Xyrith: 5 }), { message: 'Expected "/ipa/" or a respelling (a string) for entry "Xyrith" but received 5 (number)' })
  t.throws(() => parseJsonLexicon({ '!!': 'x' }), { message: /^Expected a word with a letter or digit/ })
})

t.test('bounded by the input: nesting depth, respellings\' growth', async t => {
  const deep = '<speak>' + '<s>'.repeat(1000) + 'x' + '</s>'.repeat(1000) + '</speak>'
  t.throws(() => pronounce(deep, SSML), { code: 'ERR_INVALID_SSML', message: /elements nested more than 64 deep at line 1, column 199$/ })
  const shallow = '<speak>' + '<s>'.repeat(60) + 'x' + '</s>'.repeat(60) + '</speak>'
  t.equal(pronounce(shallow, SSML).filter(p => p.kind === 'text').length, 1, '60 deep is read')
  const long = new LexiconMatcher([parseJsonLexicon({ a: 'a'.repeat(200) })])
  t.throws(() => pronounce('a '.repeat(50), { ...PLAIN, lexicon: () => long }), { code: 'ERR_INVALID_LEXICON', message: /^Expected lexicon respellings that make the text at most 10 times longer but received 10050 characters from 100$/ })
  t.doesNotThrow(() => pronounce('a', { ...PLAIN, lexicon: () => long }), 'one long respelling of a short text is fine')
})

t.test('any text, as SSML or plain: parts that map into the text, or a typed 400 (property-based)', async t => {
  const pieces = ['<speak>', '</speak>', '<s>', '</s>', '<p>', '</p>', '<break time="300ms"/>', '<break strength="weak"/>', '<prosody rate="slow">', '</prosody>',
    '<sub alias="x">', '</sub>', '<phoneme ph="ə">', '</phoneme>', '<say-as interpret-as="date">', '<say-as interpret-as="digits">', '</say-as>',
    '<lang xml:lang="de">', '</lang>', '<voice name="v">', '</voice>', '[[ ', ' ]]', '\\[[', '&amp;', '&bogus;', '<!-- c -->', '<', '>', '2024-03-15', '12', ' ', 'word', 'Xyrith', '\n']
  const text = fc.oneof(fc.string({ maxLength: 60 }), fc.array(fc.constantFrom(...pieces), { maxLength: 25 }).map(p => p.join('')))
  const matcher = new LexiconMatcher([parseJsonLexicon({ Xyrith: '/zˈɪɹɪθ/', word: 'a b' })])
  fc.assert(fc.property(text, fc.boolean(), (source, ssml) => {
    try {
      const parts = pronounce(source, { ...PLAIN, ssml, normalize: true, lexicon: () => matcher })
      return parts.every(p => {
        if (p.kind === 'phonemes') return p.start >= 0 && p.end <= source.length && p.start <= p.end
        if (p.kind !== 'text') return true
        const [a, b] = p.spoken.toOriginal(0, p.spoken.text.length)
        return a >= 0 && b <= source.length && a <= b
      })
    } catch (error) {
      if (isChorusError(error) && error.status === 400) return true
      throw error
    }
  }), fuzzParameters(500))
  t.pass('500 texts')
})
