import { AsyncResource } from 'node:async_hooks';

/**
 * Node 20's `AsyncResource#bind` wraps the bound function's `asyncResource` getter and setter in
 * `util.deprecate` on every call (DEP0172), and each of those wrappers is a fresh function made
 * the prototype of another. Fastify binds one per request with a body (its content-type parser),
 * so every POST paid for it, and far more than the 7 µs it costs alone: in the server a 404 after
 * validation ran at 3,500 req/s with it and 5,100–5,200 without (docs/benchmarks.md).
 *
 * This bind does what Node 20's does (same scope, `this`, arguments, `length` and
 * `asyncResource`) but keeps `asyncResource` a plain property, so reading it no longer warns.
 * Node versions other than 20 keep their own.
 */
type Callable = (...args: unknown[]) => unknown;
type Bind = (this: AsyncResource, fn: Callable, thisArg?: unknown) => Callable;

const prototype = AsyncResource.prototype as unknown as { bind: Bind };

export function installCheapAsyncResourceBind(nodeVersion = process.versions.node): boolean {
  if (!nodeVersion.startsWith('20.') || prototype.bind === cheapBind) return false;
  nodeBind = prototype.bind;
  prototype.bind = cheapBind;
  return true;
}

let nodeBind: Bind;

function cheapBind(this: AsyncResource, fn: Callable, thisArg?: unknown): Callable {
  // Node's own error (ERR_INVALID_ARG_TYPE) for anything that is not a function.
  if (typeof fn !== 'function') return nodeBind.call(this, fn, thisArg);
  const bound = inScope(this, fn, thisArg);
  Object.defineProperties(bound, {
    length: { configurable: true, enumerable: false, value: fn.length, writable: false },
    asyncResource: { configurable: true, enumerable: true, value: this, writable: true },
  });
  return bound;
}

/** `fn` run in `resource`'s scope, with the caller's `this` or else `thisArg`, as Node's bound functions do. */
function inScope(resource: AsyncResource, fn: Callable, thisArg: unknown): Callable {
  return thisArg === undefined
    ? function (this: unknown, ...args: unknown[]) {
        return resource.runInAsyncScope(fn, this, ...args);
      }
    : (...args: unknown[]) => resource.runInAsyncScope(fn, thisArg, ...args);
}
