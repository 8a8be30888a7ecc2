// The messages between the service and its inference process (inference-process.ts ↔ inference-host.ts), and
// the priorities a request can carry: the protocol both sides speak, so neither imports the other.
import type { LocalModelOptions } from './local-model'

export const PRIORITIES = ['query', 'request', 'background'] as const
export type Priority = (typeof PRIORITIES)[number]

export type ToHost =
  | { type: 'load'; options: LocalModelOptions & { threads: number | null } }
  | { type: 'embed'; id: number; values: string[]; priority: Priority }
  | { type: 'cancel'; id: number }
export type FromHost =
  | { type: 'ready' }
  | { type: 'load-failed'; message: string }
  | { type: 'started'; id: number }
  | { type: 'done'; id: number; data: Float32Array; dims: number }
  | { type: 'failed'; id: number; message: string }
