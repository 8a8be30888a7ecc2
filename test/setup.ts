// Preloaded by `bun test`: the first app of a process migrates the template database (a few seconds).
import { setDefaultTimeout } from 'bun:test'

setDefaultTimeout(30_000)
