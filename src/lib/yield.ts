/**
 * Resolves after the event loop has had a turn (I/O callbacks, timers). SQLite statements run synchronously
 * and a chain of awaits on them never leaves the microtask queue, so a loop of database work must call this
 * between bounded steps or no request is answered until the whole loop is done.
 */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
