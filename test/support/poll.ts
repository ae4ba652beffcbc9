/**
 * `read()` polled every 20 ms until it gives `expected` or `withinMs` passes; what it gave last. For
 * figures that settle after the answer (a charge committed behind it), so a test waits no longer than needed.
 */
export const settledAt = async <A>(read: () => Promise<A>, expected: A, withinMs = 3_000): Promise<A> => {
  const deadline = Date.now() + withinMs
  let seen = await read()
  while (seen !== expected && Date.now() < deadline) {
    await Bun.sleep(20)
    seen = await read()
  }
  return seen
}
