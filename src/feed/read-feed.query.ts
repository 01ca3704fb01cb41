import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import { CONFIG, Config } from '../config/config';
import { readBounded } from '../event-store/bounded-read';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { FEED_STREAM_PREFIXES, FeedEvent, feedEventJson, toFeedEvent } from './feed-event';

export interface FeedPage {
  events: FeedEvent[];
  /** The feed is complete up to here: a client resumes from it even after an empty page. */
  lastPosition: number;
}

export class ReadFeedQuery extends Query<FeedPage> {
  constructor(
    readonly tenantId: string,
    readonly after: number,
    readonly limit: number,
  ) {
    super();
  }
}

@QueryHandler(ReadFeedQuery)
export class ReadFeedHandler implements IQueryHandler<ReadFeedQuery> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Pick<Config, 'limits'>,
  ) {}

  /**
   * The head is read first: everything at or below it was stored before the page was read, so a
   * page that is not full is complete up to the head (or its own last event, if later).
   */
  async execute({ tenantId, after, limit }: ReadFeedQuery): Promise<FeedPage> {
    const head = await this.store.headPosition();
    const filter = { tenantId, streamPrefixes: FEED_STREAM_PREFIXES };
    const { events: page, truncated } = await readBounded(
      (cursor, count) => this.store.readAll({ after: cursor, limit: count, filter }),
      (event) => event.position,
      { after, limit, maxBytes: this.config.limits.maxPageBytes, sizeOf: (event) => Buffer.byteLength(feedEventJson(event)) },
    );
    const last = page.at(-1)?.position ?? after;
    return {
      events: page.map(toFeedEvent),
      lastPosition: page.length === limit || truncated ? last : Math.max(head, last, after),
    };
  }
}
