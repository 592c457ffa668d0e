/**
 * Both results, or the first failure once both have finished. Promise.all rejects as soon
 * as one fails, while the other may still be writing into a directory about to be removed
 * or reading a buffer about to be lent to the next job.
 */
export async function settleBoth<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === "rejected") throw ra.reason;
  if (rb.status === "rejected") throw rb.reason;
  return [ra.value, rb.value];
}
