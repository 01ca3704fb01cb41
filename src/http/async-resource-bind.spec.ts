import { AsyncResource, executionAsyncId, executionAsyncResource } from 'node:async_hooks';
import { installCheapAsyncResourceBind } from './async-resource-bind';

const onNode20 = process.versions.node.startsWith('20.');

describe('installCheapAsyncResourceBind', () => {
  beforeAll(() => installCheapAsyncResourceBind());

  it('is installed on Node 20 only, once', () => {
    expect(installCheapAsyncResourceBind()).toBe(false);
    expect(installCheapAsyncResourceBind('22.1.0')).toBe(false);
  });

  (onNode20 ? it : it.skip)('makes no deprecated accessor per call: asyncResource is a plain property', () => {
    const resource = new AsyncResource('test');
    const descriptor = Object.getOwnPropertyDescriptor(
      resource.bind(() => 1),
      'asyncResource',
    );
    expect(descriptor).toEqual({ value: resource, writable: true, enumerable: true, configurable: true });
  });

  it("runs the function in the resource's scope, with the caller's this and arguments, and keeps its length", () => {
    const resource = new AsyncResource('test');
    const seen: unknown[] = [];
    const bound = resource.bind(function (this: unknown, a: number, b: number) {
      seen.push(executionAsyncId(), executionAsyncResource(), this, a + b);
      return 'answer';
    });
    const self = { bound };
    expect(self.bound(2, 3)).toBe('answer');
    expect(seen).toEqual([resource.asyncId(), resource, self, 5]);
    expect(bound.length).toBe(2);
    expect((bound as typeof bound & { asyncResource: AsyncResource }).asyncResource).toBe(resource);
  });

  it('binds this when asked, like Node', () => {
    const thisArg = { name: 'fixed' };
    // Node's types leave out bind's thisArg.
    const resource = new AsyncResource('test') as unknown as { bind(fn: (this: { name: string }) => string, thisArg: unknown): (this: unknown) => string };
    const bound = resource.bind(function (this: { name: string }) {
      return this.name;
    }, thisArg);
    expect(bound.call({ name: 'other' })).toBe('fixed');
    expect(AsyncResource.bind((x: number) => x * 2)(21)).toBe(42);
  });

  it("refuses what is not a function with Node's own error", () => {
    expect(() => new AsyncResource('test').bind(42 as unknown as () => void)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });
});
