// Types of scripts/launcher.mjs (the fork server's build), for the TypeScript that imports it (vitest configs, tests).
export declare const LAUNCHER_NAME: string;
export declare const LAUNCHER_PATH: string;
export declare const besideTheBundle: { readonly GUARDED_SHELL_LAUNCHER: string };
export declare const inTheCheckout: { readonly GUARDED_SHELL_LAUNCHER: string };
/** out: where the binary goes (default LAUNCHER_PATH, dist/). */
export declare function buildLauncher(options?: { quiet?: boolean; out?: string }): boolean;
