// Yielding to what arrived on the event loop's sockets and workers while it was busy.

/**
 * Resolves once the event loop has polled for I/O at least once more. One `setImmediate` is not enough
 * when the caller runs in an I/O callback (a worker's message, a socket's data, a file operation's end):
 * the check phase that runs it comes straight after that poll phase, before anything else that arrived
 * meanwhile is read. Two turns are.
 */
export function afterPendingIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
