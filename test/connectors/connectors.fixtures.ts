// What a provider test gives a sync context for files: the limits a free account reads them with.
export const FILE_LIMITS = {
  maxBytes: 10 * 1024 * 1024,
  maxPages: 100,
  timeoutMs: 30_000,
  maxMemoryBytes: 1024 * 1024 * 1024,
  maxUnpackedBytes: 100 * 1024 * 1024,
}
