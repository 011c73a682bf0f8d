/** The last second formatTime formatted, and its text: a busy component formats the current second many times. */
let lastSecond = Number.NaN;
let lastText = '';

/** meta/v1 Time on the wire: RFC 3339 in UTC, whole seconds (the instant's milliseconds are dropped). */
export function formatTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
    lastSecond = second;
  }
  return lastText;
}
