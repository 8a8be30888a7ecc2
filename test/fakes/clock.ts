// A clock tests can move: sessions expiring, monthly periods, rate-limit windows.
import type { Clock } from '../../src/deps'

export class FakeClock implements Clock {
  constructor(private current = new Date()) {}
  now = () => new Date(this.current)
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms)
  }
  set(date: Date) {
    this.current = new Date(date)
  }
}
