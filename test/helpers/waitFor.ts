/** Polls `f` every 50 ms until it returns a truthy value (returned), or fails naming `what` after `ms`. */
export async function waitFor<T>(what: string, f: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
