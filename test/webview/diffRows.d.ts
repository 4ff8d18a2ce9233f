/** See diffRows.js: the rows of the approval panel's diff table; runs inside the page (DOM elements, untyped here). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export declare function readDiffRows(trs: any[]): (string | null)[][];
