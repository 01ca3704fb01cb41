/**
 * `source` with `map` applied to each item, as a plain iterator instead of an async generator:
 * every event streamed to a client or the projector passes through one, and a generator layer
 * costs several promises per item. `next` chains one `then` on the source's promise rather than
 * being an async function, whose own promise and await cost two more per item. Ending it (break, return, a throwing
 * `map`) ends the source.
 */
export function mapped<T, U>(source: AsyncIterable<T>, map: (item: T) => U): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<U> {
      const iterator = source[Symbol.asyncIterator]();
      const end = async (value?: unknown): Promise<IteratorResult<U>> => {
        await iterator.return?.();
        return { done: true, value };
      };
      return {
        next: () =>
          iterator.next().then((result): IteratorResult<U> | Promise<IteratorResult<U>> => {
            if (result.done) return result;
            try {
              return { done: false, value: map(result.value) };
            } catch (error) {
              return end().then(() => Promise.reject(error as Error));
            }
          }),
        return: end,
      };
    },
  };
}
