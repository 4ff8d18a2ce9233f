export declare const NEEDED_MAJOR: number;
export declare function findNode22(): { node: string; reason?: undefined } | { node?: undefined; reason: string };
