// Request and response schemas of /api/auth.
import { t } from 'elysia'
import { PlanName } from '../../plans'
import { Text } from '../../http/schemas'

export const User = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    email: t.String(),
    name: t.Nullable(t.String()),
    plan: PlanName,
    avatar_url: t.Nullable(t.String()),
    created_at: t.String({ format: 'date-time' }),
  },
  { title: 'User' },
)

export const SignUpBody = t.Object({
  email: Text({ format: 'email', maxLength: 254, error: 'email must be a valid email address' }),
  password: Text({ minLength: 8, maxLength: 256, error: 'password must be 8 to 256 characters' }),
  name: t.Optional(Text({ maxLength: 100 })),
})

export const SignInBody = t.Object({
  email: Text({ maxLength: 254 }),
  password: Text({ maxLength: 256 }),
})

export const UserResponse = t.Object({ user: User })

export const SessionResponse = t.Object({
  user: User,
  via: t.Union([t.Literal('key'), t.Literal('session')]),
})

export const ProvidersResponse = t.Object(
  {
    providers: t.Array(t.Union([t.Literal('github'), t.Literal('google')]), {
      description: 'Configured sign-in providers (GITHUB_CLIENT_ID/SECRET, GOOGLE_CLIENT_ID/SECRET)',
    }),
  },
  { title: 'SignInProviders' },
)
