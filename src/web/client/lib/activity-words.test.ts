// Activity entries in words: who, what, and which objects are linked.
import { describe, expect, test } from 'bun:test'
import { type ActivityEntry, describeAction, describeActor, goneIds, objectHref, objectTitle } from './activity-words'

const entry = (over: Partial<ActivityEntry>): ActivityEntry => ({
  id: crypto.randomUUID(),
  at: '2026-01-01T00:00:00.000Z',
  action: 'document.create',
  object_type: 'document',
  object_id: 'd1',
  title: 'Plan',
  workspace_id: null,
  actor: { kind: 'person', surface: 'dashboard', id: null, label: null, prefix: null },
  summary: {},
  ...over,
})

describe('who acted', () => {
  test('the person signed in is "You"; a key by label and prefix; an MCP client, a connector, the service by name', () => {
    expect(describeActor({ kind: 'person', surface: 'dashboard', id: null, label: null, prefix: null })).toBe('You')
    expect(describeActor({ kind: 'key', surface: 'rest', id: 'k', label: 'agent', prefix: 'mk_live_abcd1234' })).toBe(
      'key agent (mk_live_abcd1234…)',
    )
    expect(describeActor({ kind: 'key', surface: 'rest', id: 'k', label: null, prefix: 'mk_1' })).toBe('a key (mk_1…)')
    expect(describeActor({ kind: 'oauth', surface: 'mcp', id: 'g', label: 'Claude', prefix: null })).toBe('MCP client Claude')
    expect(describeActor({ kind: 'connector', surface: 'connector', id: 'c', label: 'Notion', prefix: null })).toBe('connector Notion')
    expect(describeActor({ kind: 'system', surface: 'job', id: null, label: 'reindex', prefix: null })).toBe('the service')
  })
})

describe('what happened', () => {
  test('an edit names the fields it changed; approvals, archives and forgetting read as a person says them', () => {
    expect(describeAction(entry({ action: 'document.update', summary: { fields: ['title', 'body'] } }))).toBe(
      'edited document: title, body',
    )
    expect(describeAction(entry({ action: 'memory.approve', object_type: 'memory' }))).toBe('approved memory')
    expect(describeAction(entry({ action: 'document.archive', object_type: 'memory' }))).toBe('archived memory')
    expect(describeAction(entry({ action: 'document.forget', title: null }))).toBe('forgot a document')
    expect(describeAction(entry({ action: 'document.version_restore', summary: { from_version: 2 } }))).toBe(
      'restored version 2 of document',
    )
    expect(describeAction(entry({ action: 'memory.unapprove', object_type: 'memory' }))).toBe('took back approval of memory')
  })
  test('a summary of the wrong shape is ignored, not shown', () => {
    expect(describeAction(entry({ action: 'document.update', summary: { fields: 'title' } }))).toBe('edited document')
  })
})

describe('the object', () => {
  test('a forgotten document is "(forgotten)" and not linked; a deleted one is not linked either; others open their page', () => {
    const forgotten = entry({ object_id: 'f', title: null, action: 'document.forget' })
    const created = entry({ object_id: 'f', title: null })
    const deleted = entry({ object_id: 'x', title: 'Old', action: 'document.delete' })
    const earlier = entry({ object_id: 'x', title: 'Old' })
    const live = entry({ object_id: 'd', title: 'Live' })
    const gone = goneIds([forgotten, created, deleted, earlier, live])
    expect(objectTitle(forgotten)).toBe('(forgotten)')
    expect(objectHref(created, gone)).toBeNull()
    expect(objectHref(earlier, gone)).toBeNull()
    expect(objectHref(live, gone)).toBe('/app/documents/d')
    expect(objectHref(entry({ object_type: 'key', object_id: 'k', title: 'agent' }), gone)).toBeNull()
  })
})
