/** Whether `promise` settles within `ms` (a rejection still rejects); the timer never holds the process. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms).unref()));
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}
