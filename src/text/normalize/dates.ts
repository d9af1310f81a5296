// Dates and times. espeak-ng reads "2024-03-15" as "two thousand twenty four
// dash zero three dash fifteen", "03/15/2024" with "slash", "March 3" as
// "March three", "3:00" as "three zero zero" and "3:05" as "three zero
// five". Dates are written as month, ordinal day and year ("March 15th,
// 2024", which espeak reads well); whole hours as "3 o'clock" (or "3 pm"
// with its suffix, "15 hundred" on a 24-hour clock, "midnight" for 0:00); "3:05" as "3 oh 5".
// Other times ("3:30 pm", "15:45") espeak reads well and keep. Slashed
// dates are read month first (US), unless the first number cannot be a
// month.

import { matchEdits, replaceMatch, type Rule } from './rule.js'
import { ordinal } from './spoken-number.js'

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

export function validDay (month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31
}

export function spokenDate (year: string, month: number, day: number): string {
  return `${MONTHS[month - 1]} ${ordinal(day)}, ${year}`
}

const ISO_DATE = /(?<![\w\-/.])(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?![\w\-/]|[.:]\d)/g
const isoDates: Rule = text => matchEdits(text, ISO_DATE, m => {
  const g = m.groups as { year: string, month: string, day: string }
  if (!validDay(Number(g.month), Number(g.day))) return undefined
  return replaceMatch(m, spokenDate(g.year, Number(g.month), Number(g.day)))
})

const SLASH_DATE = /(?<![\w\-/.])(?<first>\d{1,2})\/(?<second>\d{1,2})\/(?<year>\d{4})(?![\w\-/]|[.:]\d)/g
const slashDates: Rule = text => matchEdits(text, SLASH_DATE, m => {
  const g = m.groups as { first: string, second: string, year: string }
  let [month, day] = [Number(g.first), Number(g.second)]
  if (month > 12) [month, day] = [day, month]
  if (!validDay(month, day)) return undefined
  return replaceMatch(m, spokenDate(g.year, month, day))
})

// A month's name, full or cut ("Jan", "Sept."), then a day that is not the
// start of a longer number, a time or a year.
const MONTH_DAY = /(?<![\p{L}\p{N}_])(?<month>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)(?<dot>\.?)[ \t]+(?<day>\d{1,2})(?!\d|[:.,]\d|[\p{L}\p{N}_])/gu
const monthDays: Rule = text => matchEdits(text, MONTH_DAY, m => {
  const g = m.groups as { month: string, day: string }
  const month = MONTHS.findIndex(name => name.startsWith(g.month.slice(0, 3))) + 1
  const day = Number(g.day)
  if (!validDay(month, day)) return undefined
  return replaceMatch(m, `${MONTHS[month - 1]} ${ordinal(day)}`)
})

const TIME = /(?<![\w:.])(?<hour>\d{1,2}):(?<minute>\d{2})(?![\d:]|\.\d)(?<suffix>[ \t]?(?:[ap]\.m\.|[AP]\.M\.|[ap]m|[AP]M)(?!\w))?/g
/** How "H:MM" (with its am/pm suffix, if any) is written for espeak-ng to
 * read it well; undefined where espeak-ng already does (minutes from 10). */
export function spokenTime (hour: number, minute: number, suffix = ''): string | undefined {
  if (hour > 23 || minute > 59 || minute >= 10) return undefined
  if (minute > 0) return `${hour} oh ${minute}${suffix}`
  if (suffix !== '') return `${hour}${suffix}`
  if (hour === 0) return 'midnight'
  return hour >= 13 ? `${hour} hundred` : `${hour} o'clock`
}

const times: Rule = text => matchEdits(text, TIME, m => {
  const g = m.groups as { hour: string, minute: string, suffix?: string }
  const spoken = spokenTime(Number(g.hour), Number(g.minute), g.suffix ?? '')
  return spoken === undefined ? undefined : replaceMatch(m, spoken)
})

export const DATE_TIME_RULES: readonly Rule[] = [isoDates, slashDates, monthDays, times]
