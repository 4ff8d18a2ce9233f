export declare const NEEDED_MAJOR: number;
export declare const ROOT: string;
export declare const TOOLS: string;
export declare const VSCE_DIR: string;
export declare function wantedVsce(): string;
export declare function installedVsce(): string | undefined;
export declare function findNode22(): { node: string; reason?: undefined } | { node?: undefined; reason: string };
