// loadMcpConfig: flags over the environment, the default URL, and errors that name the bad setting.
import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../config'
import { loadMcpConfig } from './mcp.config'

describe('loadMcpConfig', () => {
  test('defaults: no token, http://localhost:3000', () => {
    expect(loadMcpConfig({}, [])).toEqual({ token: null, url: 'http://localhost:3000', logLevel: 'info', help: false })
  })

  test('SERVICE_TOKEN and SERVICE_URL; --token and --url win over them', () => {
    const env = { SERVICE_TOKEN: 'svc_env', SERVICE_URL: 'https://memory.example.com/' }
    expect(loadMcpConfig(env, [])).toMatchObject({ token: 'svc_env', url: 'https://memory.example.com' })
    expect(loadMcpConfig(env, ['--token', 'svc_flag', '--url=http://127.0.0.1:4000'])).toMatchObject({
      token: 'svc_flag',
      url: 'http://127.0.0.1:4000',
    })
  })

  test('a blank token is no token', () => {
    expect(loadMcpConfig({ SERVICE_TOKEN: '  ' }, []).token).toBeNull()
  })

  test('a bad URL, an unknown flag or a bad LOG_LEVEL stops it with a message naming the setting', () => {
    expect(() => loadMcpConfig({ SERVICE_URL: 'ftp://x' }, [])).toThrow(
      new ConfigError('SERVICE_URL must be an http(s) URL, got "ftp://x"'),
    )
    expect(() => loadMcpConfig({}, ['--url', 'nope'])).toThrow('--url must be an http(s) URL')
    expect(() => loadMcpConfig({}, ['--tokn', 'x'])).toThrow(/tokn[\s\S]*usage: bun run mcp/)
    expect(() => loadMcpConfig({ LOG_LEVEL: 'loud' }, [])).toThrow('LOG_LEVEL must be one of')
  })
})
