// The bounds one extraction runs within; the plan sets pages, the service the rest.

export interface ExtractLimits {
  /** Pages, slides or sheets read at most. */
  maxPages: number
  /** Wall time of the extracting subprocess. */
  timeoutMs: number
  /** Resident memory of the extracting subprocess. */
  maxMemoryBytes: number
  /** Bytes a zip container (DOCX, XLSX, PPTX, ODF, EPUB) may inflate to. */
  maxUnpackedBytes: number
}
