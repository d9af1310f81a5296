// Units after a number. espeak-ng spells most symbols out: "5kg" is "five
// kay gee", "60 km/h" "sixty kay em slash aitch", "10 min" "ten min", "20°C"
// "twenty degrees see". Each is written as its name, singular after exactly
// 1: "5kg" → "5 kilograms", "1 ft" → "1 foot", "20°C" → "20 degrees
// Celsius". Units espeak already reads ("3 lbs", "1.2 GHz", "2 tbsp", "50%")
// are left to it. A symbol is only a unit right after a number, so prose
// ("I'm in") never changes.

import { matchEdits, replaceMatch, type Rule } from './rule.js'
import { isOne, NUMBER } from './spoken-number.js'

/** Symbol → [singular, plural]. Case matters: "M" is not "m". */
const UNITS: Record<string, [string, string]> = {
  km: ['kilometer', 'kilometers'],
  m: ['meter', 'meters'],
  cm: ['centimeter', 'centimeters'],
  mm: ['millimeter', 'millimeters'],
  mi: ['mile', 'miles'],
  ft: ['foot', 'feet'],
  'sq ft': ['square foot', 'square feet'],
  kg: ['kilogram', 'kilograms'],
  g: ['gram', 'grams'],
  mg: ['milligram', 'milligrams'],
  lb: ['pound', 'pounds'],
  oz: ['ounce', 'ounces'],
  L: ['liter', 'liters'],
  ml: ['milliliter', 'milliliters'],
  mL: ['milliliter', 'milliliters'],
  tsp: ['teaspoon', 'teaspoons'],
  'km/h': ['kilometer per hour', 'kilometers per hour'],
  kph: ['kilometer per hour', 'kilometers per hour'],
  mph: ['mile per hour', 'miles per hour'],
  KB: ['kilobyte', 'kilobytes'],
  kB: ['kilobyte', 'kilobytes'],
  MB: ['megabyte', 'megabytes'],
  GB: ['gigabyte', 'gigabytes'],
  TB: ['terabyte', 'terabytes'],
  ms: ['millisecond', 'milliseconds'],
  sec: ['second', 'seconds'],
  secs: ['second', 'seconds'],
  min: ['minute', 'minutes'],
  mins: ['minute', 'minutes'],
  hr: ['hour', 'hours'],
  hrs: ['hour', 'hours'],
  '°C': ['degree Celsius', 'degrees Celsius'],
  '°F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  '° C': ['degree Celsius', 'degrees Celsius'],
  '° F': ['degree Fahrenheit', 'degrees Fahrenheit']
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
// Longest first, so "km/h" wins over "km" and "mins" over "min".
const SYMBOL = Object.keys(UNITS).sort((a, b) => b.length - a.length).map(escape).join('|')
const AMOUNT_UNIT = new RegExp(String.raw`(?<![\w.,])(?<amount>${NUMBER})(?<space>\s?)(?<unit>${SYMBOL})(?![\w/°])`, 'g')

export const readUnits: Rule = text => matchEdits(text, AMOUNT_UNIT, m => {
  const { amount, unit } = m.groups as { amount: string, unit: string }
  const [one, many] = UNITS[unit]
  return replaceMatch(m, `${amount} ${isOne(amount) ? one : many}`)
})
