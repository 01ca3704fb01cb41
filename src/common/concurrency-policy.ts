/**
 * How a start treats the other executions of its conversation that have not ended
 * (docs/api.md#concurrency). Shared by the conversation and execution domains, which may import
 * only src/common.
 */
export const CONCURRENCY_POLICIES = ['parallel', 'reject', 'enqueue', 'interrupt'] as const;
export type ConcurrencyPolicy = (typeof CONCURRENCY_POLICIES)[number];
