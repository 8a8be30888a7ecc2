// The connector providers by type.
import { AppError } from '../../http/errors'
import type { ConnectorProvider, ConnectorType } from '../provider'
import { confluenceProvider } from './confluence'
import { googleDriveProvider } from './google-drive'
import { notionProvider } from './notion'

const PROVIDERS: Record<ConnectorType, ConnectorProvider> = {
  confluence: confluenceProvider,
  google_drive: googleDriveProvider,
  notion: notionProvider,
}

export function providerOf(type: string): ConnectorProvider {
  const provider = (PROVIDERS as Record<string, ConnectorProvider | undefined>)[type]
  if (!provider) throw new AppError(500, `no connector provider ${type}`)
  return provider
}
