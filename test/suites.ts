/**
 * Which test files each script runs. `npm test` is the quick, load-proof suite a newcomer runs (under 5 minutes on
 * a busy 2-core machine); the files below, which measure real processes under pressure (kill, queue and memory
 * of the executor, filesystem races, thousands of sessions), drive a real browser, or spawn test runs of their own,
 * are `npm run test:long`. CI (.ci/run) runs both, strictly, and the stress and real-VS-Code suites after them.
 * One list, so no file is in both or in neither (test/unit/build/suites.test.ts).
 */
export const LONG_FILES: readonly string[] = [
  // A real Chromium (the approval panel, the standalone approval page).
  'test/webview/panel.test.ts',
  'test/webview/approvalPage.test.ts',
  'test/webview/doublePrompt.test.ts',
  'test/webview/serverMemory.test.ts',
  // Filesystem races: an attacker swaps names for links, FIFOs and other files for 30 rounds per case.
  'test/integration/boundary.races.test.ts',
  'test/integration/boundary.identity.test.ts',
  // The executor's process handling under pressure: kills, queues, thousands of commands, heap growth.
  'test/unit/exec/executor.kill.test.ts',
  'test/unit/exec/executor.concurrency.test.ts',
  'test/unit/exec/executor.memory.test.ts',
  'test/integration/sessionCap.test.ts',
  'test/integration/server.processes.test.ts',
  // Runs vitest itself several times (the skip / strict switch), or ESLint on the layering rules.
  'test/integration/capabilities.test.ts',
  'test/unit/core/layering.test.ts',
  // The VS Code server process over its IPC channel: a real server per case (every VS Code setting, a window of
  // several folders, Undo, the approval channel).
  'test/integration/vscodeSettings.ipc.test.ts',
  'test/integration/windowProcess.ipc.test.ts',
  'test/integration/undo.ipc.test.ts',
  'test/unit/extension/ipcServer.test.ts',
  // The scripted agent: three projects fixed end to end, in two configurations, through real servers.
  'test/integration/agentJob.test.ts',
  // Background commands end to end: a real server per case (a dev server in the sandbox and its port bridge, a
  // watcher read for six seconds, a flood of starts, SIGKILLs of the server), about 40 s.
  'test/integration/background.test.ts',
  // Real git on 24 hostile repositories (every read-only git command run against each), about 20 s.
  'test/unit/rules/gitReadOnly.property.test.ts',
  // The developer's context through real servers in the real sandbox (an identity, a toolchain, secrets), about 20 s.
  'test/integration/developerContext.test.ts',
  // What an agent gets back from real servers: a 20,000-line rewrite beside a second client, the tool list's size.
  'test/integration/agentResults.test.ts',
  // The conformance suite's basics through the fork server a second time (the namespaces path runs them in npm test,
  // and the fork server's own cases and the container attacks stay there too).
  'test/conformance/executor.forkServer.test.ts',
  // Every refusal message walked under five policies (2,340 of them), and "Always allow" through real servers.
  'test/integration/messages.test.ts',
  'test/integration/alwaysAllow.test.ts',
  // git's configuration reader checked against the real git on hundreds of files.
  'test/unit/core/commands/gitConfigFile.real.test.ts',
  // Start-up and packaging: what the CLI prints and its token file, the code cache across restarts, npm pack.
  'test/integration/cliStart.test.ts',
  'test/integration/compileCache.test.ts',
  'test/packaging/tarball.test.ts',
];

/** Every file of the quick suite and the long one. */
export const ALL_FILES = ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/webview/**/*.test.ts', 'test/packaging/**/*.test.ts'];
