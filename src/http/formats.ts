// Strict number formats for query strings and path parameters. Elysia reads `t.Integer` and `t.Numeric`
// query values with `+value`, so `limit=0x10` was 16, `limit=%20` (a space) was 0 and `1e1` was 10; here
// only plain decimal numbers are numbers. Elysia registers its formats only when they are absent, and this
// module replaces them, so either import order gives the strict rule.
import { FormatRegistry } from 'elysia/type-system'

const DECIMAL_INTEGER = /^-?\d{1,15}$/
const DECIMAL_NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/

FormatRegistry.Set('integer', (value) => DECIMAL_INTEGER.test(value))
FormatRegistry.Set('numeric', (value) => DECIMAL_NUMBER.test(value))
