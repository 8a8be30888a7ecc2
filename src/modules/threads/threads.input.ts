// Reads the messages of a batch: each is checked against MessageIn on its own, so an invalid message answers its
// own 400 (naming `messages[i].field`) and the others go on — as bulk.input.ts reads documents.
import { TypeCompiler } from 'elysia/type-system'
import { type AppError, badRequest } from '../../http/errors'
import { mapInGroups } from '../documents/bulk.groups'
import { describeInvalid } from '../documents/bulk.input'
import type { BulkItem } from '../documents/bulk.service'
import type { Writer } from '../documents/approval'
import { MessageIn } from './threads.schemas'
import { messageTitle, type ThreadRow } from './threads.model'

const check = TypeCompiler.Compile(MessageIn)
type Message = typeof MessageIn.static

/** Where a batch of messages comes from: the writer (approval rules) and the source documents record. */
export interface MessageOrigin {
  writer: Writer
  source: BulkItem['source']
}

/** Each raw message as an ingest of its thread, or the 400 that says what is wrong with it. */
export function readMessages(thread: ThreadRow, raw: unknown[], origin: MessageOrigin, now: Date): Promise<(BulkItem | AppError)[]> {
  return mapInGroups(raw, textSize, (item, i) => {
    if (!check.Check(item)) return badRequest(describeInvalid(check, `messages[${i}]`, item))
    const message = item as Message
    const speaker = message.speaker?.trim() ?? message.role
    if (!speaker) return badRequest(`messages[${i}]: give speaker (a name) or role (user, assistant, system, tool)`)
    const at = message.occurred_at ? new Date(message.occurred_at) : now
    return {
      workspace_id: thread.workspace_id,
      title: messageTitle(speaker, at),
      body: message.content,
      tags: message.tags,
      metadata: { ...message.metadata, ...(message.role && message.speaker ? { role: message.role } : {}) },
      occurred_at: at.toISOString(),
      source: origin.source,
      writer: origin.writer,
      message: { thread_id: thread.id, position: message.position, client_id: message.client_id, speaker },
    }
  })
}

const textSize = (item: unknown) => {
  const content = (item as { content?: unknown } | null)?.content
  return typeof content === 'string' ? content.length : 0
}
