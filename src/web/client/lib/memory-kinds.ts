// The kinds that make a document a memory (docs/decisions.md#kinds), in the order the Memories screen groups them.
export const MEMORY_KINDS = ['fact', 'preference', 'decision', 'routine', 'lesson'] as const
export type MemoryKind = (typeof MEMORY_KINDS)[number]
