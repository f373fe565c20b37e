/** Code-unit order of ids and keys (not the locale's): the order the engine sorts in everywhere. */
export const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
