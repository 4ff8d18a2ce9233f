/**
 * Fixed caps (issue 12), in one place so that the settings registry can expose them later. Each is a bound on a
 * resource an MCP client could otherwise grow without limit; the values are documented in docs/isolation.md
 * and BENCHMARKS.md.
 */

/** Streamable HTTP / SSE sessions held at once. When full, the oldest IDLE session is evicted to make room;
 * when none is idle, a new session gets HTTP 503 with a JSON-RPC error. */
export const MAX_HTTP_SESSIONS = 100;

/** A session with no request for this long is closed by the sweeper (clients that vanish without DELETE). */
export const SESSION_IDLE_MS = 30 * 60 * 1000;

/** Commands waiting for a concurrency slot at once; one more is refused at once with a clear error. */
export const MAX_QUEUED_COMMANDS = 64;

/** Entries looked at when the sandbox searches the workspace for nested `.git` and protected-glob paths. */
export const MAX_SANDBOX_SCAN_ENTRIES = 50_000;

/** Read-only mounts added for nested `.git` / protected-glob paths (each is one bwrap argument triple). */
export const MAX_SANDBOX_EXTRA_MOUNTS = 512;

/**
 * Output kept for readOutput (src/core/output/spill.ts), over all sessions of one server: past either bound the
 * oldest kept output is dropped. 256 MiB is 128 commands that filled both streams to the default 1 MiB limit.
 */
export const MAX_KEPT_OUTPUT_BYTES = 256 * 1024 * 1024;
export const MAX_KEPT_OUTPUTS = 256;
