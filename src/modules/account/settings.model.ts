// A person's settings as the API shows them, and how a stored row (or its JSON) becomes one: read by the
// settings service and by the credential lookups (sessions, API keys), which load settings with the caller.

export interface SettingsDto {
  default_workspace_id: string | null
  search_mode: 'hybrid' | 'keyword' | 'semantic'
  answer_style: 'concise' | 'detailed'
  /** Each turn of ask, agent chat and /v1/responses also kept as messages of a thread (threads/remember.ts). */
  remember_conversations: boolean
}

export const DEFAULT_SETTINGS: SettingsDto = {
  default_workspace_id: null,
  search_mode: 'hybrid',
  answer_style: 'concise',
  remember_conversations: false,
}

/** A stored settings row (or the same as JSON, as the credential lookup reads it) as the DTO; defaults when none. */
export function settingsOf(
  row:
    | { default_workspace_id: string | null; search_mode: string; answer_style: string; remember_conversations?: boolean | null }
    | null
    | undefined,
): SettingsDto {
  if (!row) return DEFAULT_SETTINGS
  return {
    default_workspace_id: row.default_workspace_id,
    search_mode: row.search_mode as SettingsDto['search_mode'],
    answer_style: row.answer_style as SettingsDto['answer_style'],
    remember_conversations: row.remember_conversations === true,
  }
}
