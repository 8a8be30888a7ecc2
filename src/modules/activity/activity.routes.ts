// /api/activity: what happened to the person's data and who did it, newest first — filtered by object, action,
// actor and time. Read-only: the record is appended to by the writes themselves.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors } from '../../http/schemas'
import { readTimeRange } from '../../lib/time-range'
import { ActivityPage, ActivityQuery } from './activity.schemas'
import { listActivity } from './activity.service'

export function activityRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/activity' })
    .use(authPlugin(deps))
    .get(
      '',
      ({ user, query: { after, before, ...query } }) =>
        listActivity(deps, user, { ...query, ...readTimeRange({ after, before }), limit: query.limit ?? 20 }),
      {
        auth: true,
        query: ActivityQuery,
        response: { 200: ActivityPage, ...errors(400, 401) },
        detail: {
          tags: ['activity'],
          summary:
            'What happened to your data, newest first: every write (ingest, edit, archive, restore, forget, delete, draft, approve, reject, ' +
            'supersede, link, import, connector sync, keys, settings) with who made it (you signed in, or a key by label and prefix, with ' +
            'the way in) and what changed — never the content. Kept ACTIVITY_RETENTION_DAYS (default 365)',
        },
      },
    )
}
