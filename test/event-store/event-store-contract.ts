import { EventStore } from '../../src/event-store/event-store';
import { describeAppendContract } from './contract/append.contract';
import { describeCountContract } from './contract/count.contract';
import { describeFilteredSubscribeContract } from './contract/filtered-subscribe.contract';
import { ContractContext } from './contract/helpers';
import { describeIdsContract } from './contract/ids.contract';
import { describeReadContract } from './contract/read.contract';
import { describeStreamHeadContract } from './contract/stream-head.contract';
import { describeStreamTenantContract } from './contract/stream-tenant.contract';
import { describeSubscribeContract } from './contract/subscribe.contract';

/**
 * The behaviour every EventStore adapter must show, run unchanged against each of them.
 *
 * One store serves the whole block (opened in beforeAll); every test writes to streams with a
 * random suffix and reads $all only after a position it observed itself, so the suite also passes
 * against a shared EventStoreDB that already holds, and keeps receiving, other events.
 *
 * `cleanup` runs after the store has been closed (e.g. to delete its temp folder).
 */
export function describeEventStoreContract(name: string, open: () => Promise<EventStore>, cleanup?: (store: EventStore) => Promise<void>): void {
  describe(`EventStore contract: ${name}`, () => {
    const ctx = {} as ContractContext;

    beforeAll(async () => {
      ctx.store = await open();
    });

    afterAll(async () => {
      if (!ctx.store) return;
      await ctx.store.close();
      await cleanup?.(ctx.store);
    });

    describeAppendContract(ctx);
    describeReadContract(ctx);
    describeCountContract(ctx);
    describeSubscribeContract(ctx);
    describeIdsContract(ctx);
    describeStreamHeadContract(ctx);
    describeStreamTenantContract(ctx);
    describeFilteredSubscribeContract(ctx);
  });
}
