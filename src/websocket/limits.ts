// Process-wide counts of what every socket holds: open contexts and text
// waiting to be spoken. Each socket has its own bounds too (session.ts).

export class SocketLimits {
  contexts = 0
  text = 0

  constructor (readonly maxContexts: number, readonly maxText: number) {}
}
