// Subscriptions and the payment-provider events already applied (webhooks are idempotent per event id).
import { boolean, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { timestamps, ts } from './columns'
import { users } from './users'

export const subscriptions = pgTable('subscriptions', {
  user_id: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  plan: text('plan').notNull(),
  /** none | active | trialing | past_due | canceled */
  status: text('status').notNull(),
  stripe_customer_id: text('stripe_customer_id'),
  stripe_subscription_id: text('stripe_subscription_id'),
  current_period_end: ts('current_period_end'),
  cancel_at_period_end: boolean('cancel_at_period_end').notNull().default(false),
  ...timestamps,
})

export const processedWebhookEvents = pgTable('processed_webhook_events', {
  id: text('id').primaryKey(),
  provider: text('provider').notNull(),
  type: text('type').notNull(),
  processed_at: timestamps.created_at,
})
