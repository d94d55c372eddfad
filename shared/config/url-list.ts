/** The URLs of a variable that takes one URL or a comma-separated list (NATS_URL, REDIS_URL). */
export function urlList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
