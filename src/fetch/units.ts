// Sizes and durations as people read them in error messages.
const MB = 1024 * 1024;

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

export function formatBytes(bytes: number): string {
  return bytes % MB === 0 ? `${bytes / MB} MB` : bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}
