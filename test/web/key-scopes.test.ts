// The dashboard's scope words are the API's: the browser keeps its own copy (it imports no server file), held here.
import { expect, test } from 'bun:test'
import * as server from '../../src/modules/keys/key-scopes'
import * as dashboard from '../../src/web/client/lib/key-scopes'

test('the key scopes, their default and their descriptions in the dashboard are those of the API', () => {
  expect([...dashboard.KEY_SCOPES]).toEqual([...server.KEY_SCOPES])
  expect([...dashboard.DEFAULT_KEY_SCOPES]).toEqual(server.DEFAULT_KEY_SCOPES)
  expect(dashboard.SCOPE_DESCRIPTIONS).toEqual(server.SCOPE_DESCRIPTIONS)
})
