/**
 * The value of `fn`, or undefined when it throws: for probes of the disk or of a decoder where every failure
 * means the same thing (missing, unreadable, not decodable) and the caller has one fallback for all of them.
 */
export function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
