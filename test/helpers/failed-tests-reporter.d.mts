// Types of the reporter, which stays plain JavaScript (tap loads it without tsx).
import { Transform } from 'node:stream'

export default class FailedTestsReporter extends Transform {}
