// Strict number formats for query strings and path parameters. Elysia reads `t.Integer` and `t.Numeric`
// query values with `+value`, so `limit=0x10` was 16, `limit=%20` (a space) was 0 and `1e1` was 10; here
// only plain decimal numbers are numbers. Elysia registers its formats only when they are absent, and this
// module replaces them, so either import order gives the strict rule.
// `email` is the other way round: the one registered (zod's) refused addresses JSON Schema's `email` format
// (RFC 5321's dot-atom mailbox) allows, such as `o'brien+x@mail.example` with a `{` or `/` in it; this is
// that format as ajv-formats checks it, so the document and the check agree.
// @elysiajs/openapi sets formats of its own when it is first imported (valibot's and then zod's `email`, the
// last one winning): imported here first, so what this module sets comes after, whatever imports it.
import '@elysiajs/openapi'
import { FormatRegistry } from 'elysia/type-system'

const DECIMAL_INTEGER = /^-?\d{1,15}$/
const DECIMAL_NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/

FormatRegistry.Set('integer', (value) => DECIMAL_INTEGER.test(value))
FormatRegistry.Set('numeric', (value) => DECIMAL_NUMBER.test(value))

const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i
FormatRegistry.Set('email', (value) => EMAIL.test(value))

// `uri-template` (RFC 6570) for a return URL Stripe fills in: `…?session_id={CHECKOUT_SESSION_ID}` is not a URI
// (braces are not URI characters) but is a template whose expansion is one. Checked as the URI it expands to.
const uri = FormatRegistry.Get('uri')
const TEMPLATE_EXPRESSION = /\{[A-Za-z0-9_]+\}/g
FormatRegistry.Set('uri-template', (value) => {
  const expanded = value.replace(TEMPLATE_EXPRESSION, 'x')
  return !!uri && !/[{}]/.test(expanded) && uri(expanded)
})
