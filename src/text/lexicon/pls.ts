// W3C Pronunciation Lexicon Specification 1.0, as far as speech synthesis
// uses it: `<lexicon alphabet="ipa" xml:lang="…">` holding `<lexeme>`s, each
// with one or more `<grapheme>`s and its pronunciations, `<phoneme>` (IPA)
// or `<alias>` (a respelling). Of several pronunciations the one marked
// prefer="true" is used, else the first, as PLS says. `<meta>`,
// `<metadata>` and `<example>` are read past; a lexeme's `role` is not used
// (a synthesizer has no part-of-speech to choose by). Every refusal names
// the lexeme and its line and column.

import { invalidLexicon, placeText, type MarkupPlace } from '../errors.js'
import { onlyText, parseXml, XmlSyntaxError, type XmlElement } from '../xml.js'
import { hasWordCharacter, LEXICON_LIMITS, normalizeGrapheme, type Lexicon, type LexiconEntry } from './lexicon.js'

const IGNORED = new Set(['meta', 'metadata', 'example'])

function refuse (what: string, name: string, received: string, place: MarkupPlace): never {
  throw invalidLexicon(`Expected ${what} for ${name} but received ${received} at ${placeText(place)}`, { details: { entry: name, line: place.line, column: place.column } })
}

/** The lexicon in a PLS document. */
export function parsePls (source: string): Lexicon {
  let root: XmlElement
  try {
    root = parseXml(source)
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error
    throw invalidLexicon(`Expected a well-formed PLS document for the lexicon but received ${error.reason} at ${placeText(error.place)}`,
      { details: { line: error.place.line, column: error.place.column } })
  }
  if (root.name !== 'lexicon') refuse('a <lexicon> root element', 'the lexicon', `<${root.name}>`, root.place)
  const language = root.attributes['xml:lang']
  if (language === undefined || !/^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/.test(language)) {
    refuse('an xml:lang language tag (en-US)', '<lexicon>', language === undefined ? 'none' : JSON.stringify(language), root.place)
  }
  const alphabet = root.attributes.alphabet ?? 'ipa'
  const entries: LexiconEntry[] = []
  for (const child of root.children) {
    if (child.kind === 'text') {
      if (child.spoken.text.trim() !== '') refuse('only elements', '<lexicon>', `text ${JSON.stringify(child.spoken.text.trim().slice(0, 40))}`, child.place)
      continue
    }
    if (IGNORED.has(child.name)) continue
    if (child.name !== 'lexeme') refuse('<lexeme>, <meta> or <metadata>', '<lexicon>', `<${child.name}>`, child.place)
    if (entries.length >= LEXICON_LIMITS.entries) refuse(`at most ${LEXICON_LIMITS.entries} lexemes`, 'the lexicon', 'more', child.place)
    entries.push(lexeme(child, entries.length + 1, alphabet))
  }
  return { language, entries }
}

interface Pronunciation { kind: 'phoneme' | 'alias', text: string, prefer: boolean }

function lexeme (element: XmlElement, index: number, alphabet: string): LexiconEntry {
  const graphemes: string[] = []
  const pronunciations: Pronunciation[] = []
  let label = `lexeme ${index}`
  for (const child of element.children) {
    if (child.kind === 'text') {
      if (child.spoken.text.trim() !== '') refuse('only elements', label, `text ${JSON.stringify(child.spoken.text.trim().slice(0, 40))}`, child.place)
      continue
    }
    if (IGNORED.has(child.name)) continue
    const text = elementText(child, label)
    if (child.name === 'grapheme') {
      const grapheme = normalizeGrapheme(text)
      if (!hasWordCharacter(grapheme) || grapheme.length > LEXICON_LIMITS.graphemeLength) {
        refuse(`a grapheme with a letter or digit, at most ${LEXICON_LIMITS.graphemeLength} characters`, label, JSON.stringify(text.slice(0, 120)), child.place)
      }
      graphemes.push(grapheme)
      if (graphemes.length === 1) label = `lexeme ${index} (${JSON.stringify(grapheme)})`
    } else if (child.name === 'phoneme' || child.name === 'alias') {
      pronunciations.push(pronunciation(child, text, label, alphabet))
    } else {
      refuse('<grapheme>, <phoneme>, <alias> or <example>', label, `<${child.name}>`, child.place)
    }
  }
  if (graphemes.length === 0) refuse('at least one <grapheme>', label, 'none', element.place)
  const chosen = pronunciations.find(p => p.prefer) ?? pronunciations[0]
  if (chosen === undefined) refuse('a <phoneme> or an <alias>', label, 'none', element.place)
  return { graphemes, label, ...(chosen.kind === 'phoneme' ? { ipa: chosen.text } : { alias: chosen.text }) }
}

function elementText (element: XmlElement, label: string): string {
  const text = onlyText(element)
  if (text === undefined) refuse('text only', `<${element.name}> of ${label}`, 'an element inside it', element.place)
  return text
}

function pronunciation (element: XmlElement, raw: string, label: string, alphabet: string): Pronunciation {
  const text = raw.trim().replace(/\s+/gu, ' ')
  const name = `<${element.name}> of ${label}`
  if (text === '' || text.length > LEXICON_LIMITS.pronunciationLength) {
    refuse(`1 to ${LEXICON_LIMITS.pronunciationLength} characters`, name, JSON.stringify(raw.slice(0, 120)), element.place)
  }
  const prefer = element.attributes.prefer
  if (prefer !== undefined && prefer !== 'true' && prefer !== 'false') refuse('prefer="true" or "false"', name, JSON.stringify(prefer), element.place)
  if (element.name === 'phoneme') {
    const own = element.attributes.alphabet ?? alphabet
    if (own !== 'ipa') refuse('alphabet="ipa" (the only alphabet Chorus reads)', name, JSON.stringify(own), element.place)
  }
  return { kind: element.name as Pronunciation['kind'], text, prefer: prefer === 'true' }
}
