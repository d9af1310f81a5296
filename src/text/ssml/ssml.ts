// The SSML subset Chorus speaks, read into a script (script.ts):
//   <speak>                  the root (xml:lang: the language of its content)
//   <p>, <s>                 a paragraph, a sentence: each starts and ends a sentence
//   <break time strength>    silence; it ends the sentence before it
//   <prosody rate>           speed (pitch and volume are accepted and ignored)
//   <sub alias>              the alias is spoken, the content is what timing shows
//   <phoneme alphabet="ipa" ph>  the phonemes are spoken for the content
//   <say-as interpret-as>    characters, cardinal, ordinal, digits, date, time, telephone (say-as.ts)
//   <lang xml:lang>          the content in another espeak-ng language
//   <voice name>             the content in another installed voice
// Anything else is refused with its line and column, before any audio: an
// answer is never half-spoken. White space runs in text are one space, as
// XML readers of SSML take them.

import { invalidSsml, placeText, type MarkupPlace } from '../errors.js'
import type { SpokenText } from '../normalize/index.js'
import { isEnglish } from '../normalize/index.js'
import type { Edit } from '../normalize/offsets.js'
import type { ScriptPart, ScriptStyle } from '../script.js'
import { PLAIN_STYLE } from '../script.js'
import { editSpoken, joinSpoken } from '../spoken.js'
import { onlyText, parseXml, XmlSyntaxError, type XmlElement, type XmlNode } from '../xml.js'
import { breakSeconds, onlyAttributes, prosodyRate } from './attributes.js'
import { refuseSsml } from './refuse.js'
import { sayAs } from './say-as.js'

export const SSML_ELEMENTS = ['speak', 'p', 's', 'break', 'prosody', 'sub', 'phoneme', 'say-as', 'lang', 'voice'] as const

export interface SsmlOptions {
  /** The espeak-ng language of the request's voice: say-as writes English words only for English. */
  language: string
}

const ROOT_OPEN = '<speak>'
const ROOT_CLOSE = '</speak>'

/** Whether a request's text is SSML by its look: it starts with `<speak`. */
export function looksLikeSsml (text: string): boolean {
  return /^\s*(?:<\?xml[^>]*\?>\s*)?<speak[\s>/]/.test(text)
}

/** A place in the document as written, from one in the document with the
 * opening root tag added before it (on its first line). */
function unwrapPlace (place: MarkupPlace): MarkupPlace {
  return place.line === 1 ? { line: 1, column: Math.max(1, place.column - ROOT_OPEN.length) } : place
}

/** The tree of a fragment read inside `<speak>…</speak>`, its places and ranges those of the fragment as sent. */
function unwrap (element: XmlElement, length: number): void {
  const at = (index: number): number => Math.min(length, Math.max(0, index - ROOT_OPEN.length))
  element.place = unwrapPlace(element.place)
  element.start = at(element.start)
  element.end = at(element.end)
  element.children = element.children.map(child => {
    if (child.kind === 'element') {
      unwrap(child, length)
      return child
    }
    const inner = child.spoken
    return { ...child, place: unwrapPlace(child.place), spoken: { text: inner.text, toOriginal: (a, b) => { const [x, y] = inner.toOriginal(a, b); return [at(x), at(y)] } } }
  })
}

function readDocument (source: string, fragment: boolean): XmlElement {
  try {
    if (!fragment) return parseXml(source)
    const root = parseXml(ROOT_OPEN + source + ROOT_CLOSE)
    unwrap(root, source.length)
    return root
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error
    const place = fragment ? unwrapPlace(error.place) : error.place
    throw invalidSsml(`Expected well-formed SSML for text but received ${error.reason} at ${placeText(place)}`,
      { details: { line: place.line, column: place.column, expected: 'well-formed XML' } })
  }
}

/** The script an SSML document asks for. A text that does not start with
 * `<speak>` is read as the content of one (a fragment, as the WebSocket's
 * pieces are), its offsets and places still those of the text as sent. */
export function parseSsml (source: string, options: SsmlOptions): ScriptPart[] {
  const root = readDocument(source, !looksLikeSsml(source))
  if (root.name !== 'speak') refuseSsml('a <speak> root element', 'text', `<${root.name}>`, root.place)
  onlyAttributes(root, ['version', 'xml:lang', 'xml:base'])
  const walker = new Walker(options)
  walker.children(root, languageOf(root, PLAIN_STYLE))
  return walker.parts
}

function languageOf (element: XmlElement, style: ScriptStyle): ScriptStyle {
  const language = element.attributes['xml:lang']
  if (language === undefined) return style
  if (!/^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/.test(language)) refuseSsml('a language tag ("de", "en-GB")', `<${element.name} xml:lang>`, JSON.stringify(language), element.place)
  return { ...style, language }
}

/** White-space runs as one space. */
function collapsed (spoken: SpokenText): SpokenText {
  const edits: Edit[] = []
  for (const match of spoken.text.matchAll(/\s+/gu)) {
    if (match[0] !== ' ') edits.push({ start: match.index, end: match.index + match[0].length, text: ' ' })
  }
  return editSpoken(spoken, edits)
}

class Walker {
  readonly parts: ScriptPart[] = []

  constructor (private readonly options: SsmlOptions) {}

  children (element: XmlElement, style: ScriptStyle): void {
    for (const child of element.children) this.node(child, style)
  }

  private node (node: XmlNode, style: ScriptStyle): void {
    if (node.kind === 'text') {
      this.parts.push({ kind: 'text', spoken: collapsed(node.spoken), overrides: [], style })
      return
    }
    this.element(node, style)
  }

  private element (element: XmlElement, style: ScriptStyle): void {
    switch (element.name) {
      case 'p':
      case 's':
        onlyAttributes(element, ['xml:lang'])
        this.parts.push({ kind: 'boundary' })
        this.children(element, languageOf(element, style))
        this.parts.push({ kind: 'boundary' })
        return
      case 'break':
        onlyAttributes(element, ['time', 'strength'])
        if (element.children.length > 0) refuseSsml('an empty element', '<break>', 'content', element.place)
        this.parts.push({ kind: 'break', seconds: breakSeconds(element) })
        return
      case 'prosody':
        onlyAttributes(element, ['rate', 'pitch', 'volume', 'duration'])
        this.children(element, { ...style, rate: style.rate * prosodyRate(element) })
        return
      case 'lang':
        onlyAttributes(element, ['xml:lang'])
        if (element.attributes['xml:lang'] === undefined) refuseSsml('an xml:lang attribute', '<lang>', 'none', element.place)
        this.children(element, languageOf(element, style))
        return
      case 'voice':
        this.voice(element, style)
        return
      default:
        this.leaf(element, style)
    }
  }

  private voice (element: XmlElement, style: ScriptStyle): void {
    onlyAttributes(element, ['name'])
    const name = element.attributes.name
    if (name === undefined || name.trim() === '') refuseSsml('a name attribute (an installed voice)', '<voice>', 'none', element.place)
    this.children(element, { ...style, voice: name.trim() })
  }

  /** The elements that hold text only: sub, phoneme, say-as. */
  private leaf (element: XmlElement, style: ScriptStyle): void {
    if (!['sub', 'phoneme', 'say-as'].includes(element.name)) {
      refuseSsml(`one of the elements ${SSML_ELEMENTS.join(', ')}`, 'an SSML element', `<${element.name}>`, element.place)
    }
    if (onlyText(element) === undefined) refuseSsml('text only', `<${element.name}>`, 'an element inside it', element.place)
    const content = this.content(element)
    if (element.name === 'sub') {
      onlyAttributes(element, ['alias'])
      const alias = element.attributes.alias
      if (alias === undefined || alias.trim() === '') refuseSsml('an alias attribute to speak', '<sub>', 'none', element.place)
      this.parts.push({ kind: 'text', spoken: editSpoken(content, [{ start: 0, end: content.text.length, text: alias.trim() }]), overrides: [], style })
    } else if (element.name === 'phoneme') {
      this.phoneme(element, content, style)
    } else {
      onlyAttributes(element, ['interpret-as', 'format', 'detail'])
      const english = isEnglish(style.language ?? this.options.language)
      const read = sayAs(content, element.attributes['interpret-as'], element.attributes.format, english, element.place)
      this.parts.push({ kind: 'text', spoken: read, overrides: [], style })
    }
  }

  /** The element's text joined, mapping into the source (a leaf holds text only). */
  private content (element: XmlElement): SpokenText {
    const texts = element.children.flatMap(child => child.kind === 'text' ? [child.spoken] : [])
    // An empty element (`<phoneme ph="…"/>`): what it says maps to the element itself.
    if (texts.length === 0) return { text: '', toOriginal: () => [element.start, element.end] }
    return joinSpoken(texts)
  }

  private phoneme (element: XmlElement, content: SpokenText, style: ScriptStyle): void {
    onlyAttributes(element, ['alphabet', 'ph'])
    const alphabet = element.attributes.alphabet ?? 'ipa'
    if (alphabet !== 'ipa') refuseSsml('alphabet="ipa" (the only alphabet Chorus reads)', '<phoneme>', JSON.stringify(alphabet), element.place)
    const ph = element.attributes.ph?.trim().replace(/\s+/gu, ' ')
    if (ph === undefined || ph === '') refuseSsml('a ph attribute with IPA phonemes', '<phoneme>', 'none', element.place)
    const trimmed = content.text.trim()
    const lead = content.text.length - content.text.trimStart().length
    const [start, end] = trimmed === '' ? [element.start, element.end] : content.toOriginal(lead, lead + trimmed.length)
    this.parts.push({ kind: 'phonemes', ipa: ph, start, end, origin: `<phoneme> at ${placeText(element.place)}`, style })
  }
}
