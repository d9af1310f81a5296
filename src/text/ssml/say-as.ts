// `<say-as interpret-as>`: the element's text rewritten so espeak-ng reads it
// as the kind it is. The spoken words map back to the whole content, so word
// timing shows the content as written ("123" for "one two three").
//
//   characters, spell-out  "NPC"          → "N P C"
//   cardinal, number       "1,234"        → "1234" (espeak-ng reads the number)
//   ordinal                "3"            → "3rd"  ("third")
//   digits                 "1234"         → "1 2 3 4"
//   date (format: mdy, dmy, ymd, md, dm, ym, my, y, m, d; default ymd for
//         "2024-03-15", else mdy)  "3/15/2024" → "March 15th, 2024"
//   time                   "3:05 pm"      → "3 oh 5 pm", "15:00" → "15 hundred"
//   telephone              "+1 555-0100"  → "plus 1, 5 5 5, 0 1 0 0"
//
// The words written (ordinals, months, "oh", "plus") are English: for other
// languages, ordinal, date and time content is spoken as written.

import type { MarkupPlace } from '../errors.js'
import type { SpokenText } from '../normalize/index.js'
import { MONTHS, spokenDate, spokenTime, validDay } from '../normalize/dates.js'
import { ordinal } from '../normalize/spoken-number.js'
import { editSpoken } from '../spoken.js'
import { refuseSsml } from './refuse.js'

export const SAY_AS_KINDS = ['characters', 'spell-out', 'cardinal', 'number', 'ordinal', 'digits', 'date', 'time', 'telephone'] as const
const DATE_FORMATS = ['mdy', 'dmy', 'ymd', 'md', 'dm', 'ym', 'my', 'y', 'm', 'd']
const ENGLISH_ONLY = new Set(['ordinal', 'date', 'time'])

type Reader = (text: string, format: string | undefined, place: MarkupPlace) => string

function wrong (kind: string, text: string, place: MarkupPlace, what: string): never {
  refuseSsml(what, `<say-as interpret-as="${kind}">`, JSON.stringify(text), place)
}

const spaced = (text: string): string => [...text].filter(c => c.trim() !== '').join(' ')

const cardinal: Reader = (text, _format, place) => {
  const number = text.replace(/(?<=\d)[,\s](?=\d{3}\b)/g, '')
  if (!/^[-+]?\d+(?:\.\d+)?$/.test(number)) wrong('cardinal', text, place, 'a number ("1234", "1,234", "-3.5")')
  return number
}

const ordinalReader: Reader = (text, _format, place) => {
  const match = /^(\d+)(?:st|nd|rd|th|\.)?$/i.exec(text)
  if (match === null) wrong('ordinal', text, place, 'a whole number ("3", "3rd")')
  return ordinal(Number(match[1]))
}

const digits: Reader = (text, _format, place) => {
  if (!/^[\d\s-]+$/.test(text)) wrong('digits', text, place, 'digits')
  return spaced(text.replace(/-/g, ' '))
}

function dateReader (text: string, format: string | undefined, place: MarkupPlace): string {
  const order = format ?? (/^\d{4}-\d{1,2}-\d{1,2}$/.test(text) ? 'ymd' : 'mdy')
  if (!DATE_FORMATS.includes(order)) refuseSsml(`one of ${DATE_FORMATS.join(', ')}`, '<say-as format>', JSON.stringify(format), place)
  const parts = text.split(/[-/.\s]+/).filter(p => p !== '')
  if (parts.length !== order.length || !parts.every(p => /^\d{1,4}$/.test(p))) wrong('date', text, place, `a date in the order ${order} ("2024-03-15", "3/15/2024")`)
  const field = (letter: string): number | undefined => { const i = order.indexOf(letter); return i < 0 ? undefined : Number(parts[i]) }
  const [year, month, day] = [field('y'), field('m'), field('d')]
  if ((month !== undefined && (month < 1 || month > 12)) || (day !== undefined && !validDay(month ?? 1, day))) wrong('date', text, place, 'a month from 1 to 12 and a day from 1 to 31')
  if (year !== undefined && month !== undefined && day !== undefined) return spokenDate(String(year), month, day)
  const words = [month === undefined ? '' : MONTHS[month - 1], day === undefined ? '' : ordinal(day), year === undefined ? '' : String(year)]
  return words.filter(w => w !== '').join(' ')
}

function timeReader (text: string, _format: string | undefined, place: MarkupPlace): string {
  const match = /^(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s*([ap]\.?m\.?)?$/i.exec(text)
  if (match === null || Number(match[1]) > 23 || Number(match[2] ?? 0) > 59) wrong('time', text, place, 'a time ("3:05", "15:30", "3pm")')
  const suffix = match[3] === undefined ? '' : ` ${match[3].replace(/\./g, '').toLowerCase()}`
  return spokenTime(Number(match[1]), Number(match[2] ?? 0), suffix) ?? `${match[1]}:${match[2] ?? '00'}${suffix}`
}

function telephone (text: string, _format: string | undefined, place: MarkupPlace): string {
  if (!/^\+?[\d\s().-]+$/.test(text) || !/\d/.test(text)) wrong('telephone', text, place, 'a telephone number ("+1 555-0100")')
  const groups = text.replace(/^\+/, '').split(/[\s().-]+/).filter(g => g !== '')
  return (text.startsWith('+') ? 'plus ' : '') + groups.map(spaced).join(', ')
}

const READERS: Record<(typeof SAY_AS_KINDS)[number], Reader> = {
  characters: text => spaced(text),
  'spell-out': text => spaced(text),
  cardinal,
  number: cardinal,
  ordinal: ordinalReader,
  digits,
  date: dateReader,
  time: timeReader,
  telephone
}

function isKind (kind: string): kind is (typeof SAY_AS_KINDS)[number] {
  return (SAY_AS_KINDS as readonly string[]).includes(kind)
}

/** `content` as `kind` reads it; `english`: the words may be English ones. */
export function sayAs (content: SpokenText, kind: string | undefined, format: string | undefined, english: boolean, place: MarkupPlace): SpokenText {
  if (kind === undefined || !isKind(kind)) refuseSsml(`one of ${SAY_AS_KINDS.join(', ')}`, '<say-as interpret-as>', kind === undefined ? 'none' : JSON.stringify(kind), place)
  const text = content.text.trim()
  if (text === '') refuseSsml('text to read', `<say-as interpret-as="${kind}">`, 'none', place)
  if (!english && ENGLISH_ONLY.has(kind)) return content
  const start = content.text.length - content.text.trimStart().length
  return editSpoken(content, [{ start, end: start + text.length, text: READERS[kind](text, format, place) }])
}
