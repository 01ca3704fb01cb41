export { RunledgerClient } from './client';
export type { CallOptions, StartResult } from './client';
export { RunledgerError } from './errors';
export type { FollowOptions } from './follow';
export type { ClientOptions } from './transport';
export * from './types';
