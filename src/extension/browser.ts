// The few WebExtension APIs the extension uses, typed here: `browser` (Firefox, promise-based) or `chrome` (Chromium, MV3 promises).

type Listener<F> = { addListener(callback: F): void }

export interface Tab {
  id?: number
  url?: string
  title?: string
}

export interface MenuClick {
  menuItemId: string | number
  selectionText?: string
}

export interface ExtensionApi {
  runtime: {
    id: string
    getURL(path: string): string
    openOptionsPage(): Promise<void>
    sendMessage(message: unknown): Promise<unknown>
    onMessage: Listener<(message: unknown, sender: unknown, sendResponse: (response: unknown) => void) => boolean | undefined>
    onInstalled: Listener<() => void>
    onStartup: Listener<() => void>
  }
  tabs: {
    query(filter: { active: boolean; currentWindow: boolean }): Promise<Tab[]>
    get(tabId: number): Promise<Tab>
    create(properties: { url: string }): Promise<Tab>
  }
  extension: { isAllowedFileSchemeAccess(): Promise<boolean> }
  scripting: {
    executeScript(injection: {
      target: { tabId: number }
      files?: string[]
      func?: (...args: never[]) => unknown
      args?: unknown[]
    }): Promise<{ result?: unknown }[]>
  }
  storage: {
    local: {
      get(keys: string[]): Promise<Record<string, unknown>>
      set(items: Record<string, unknown>): Promise<void>
    }
  }
  permissions: {
    contains(permissions: { origins: string[] }): Promise<boolean>
    request(permissions: { origins: string[] }): Promise<boolean>
  }
  contextMenus: {
    create(properties: { id: string; title: string; contexts: string[] }): void
    removeAll(): Promise<void>
    onClicked: Listener<(info: MenuClick, tab?: Tab) => void>
  }
  commands: { onCommand: Listener<(command: string, tab?: Tab) => void> }
  action: {
    setBadgeText(details: { tabId?: number; text: string }): Promise<void>
    setBadgeBackgroundColor(details: { tabId?: number; color: string }): Promise<void>
    setTitle(details: { tabId?: number; title: string }): Promise<void>
  }
}

const scope = globalThis as unknown as { browser?: ExtensionApi; chrome?: ExtensionApi }

/** Firefox's `browser` when present (its `chrome` alias is callback-first in places), else Chromium's `chrome`. */
export const ext: ExtensionApi = (scope.browser ?? scope.chrome)!

/** This extension's origin as browsers send it in `Origin`: `chrome-extension://<id>` or `moz-extension://<uuid>`. */
export function extensionOrigin(): string {
  return ext.runtime.getURL('').replace(/\/+$/, '')
}
