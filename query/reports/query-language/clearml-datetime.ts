/**
 * Date-times as ClearML writes them (protocol.md §1): Python's isoformat()
 * plus `+00:00`, a 6-digit fraction that is omitted when zero.
 */

/** `2024-05-01T10:20:30.123000+00:00`, or `2024-05-01T10:20:30+00:00` on a whole second. */
export function formatClearmlDateTime(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  const wholeSeconds = Math.floor(micros / 1_000_000);
  const fraction = micros - wholeSeconds * 1_000_000;
  const base = new Date(wholeSeconds * 1000).toISOString().slice(0, 19);
  return fraction === 0 ? `${base}+00:00` : `${base}.${String(fraction).padStart(6, '0')}+00:00`;
}
