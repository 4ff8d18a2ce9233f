import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

/** Builds dist/ once per run (a vitest global setup): the integration tests start the real dist/cli.js and dist/server.js. */
export function setup(): void {
  execFileSync(process.execPath, ['esbuild.mjs', '--quiet'], { cwd: path.resolve(__dirname, '../..'), stdio: 'inherit' });
}
