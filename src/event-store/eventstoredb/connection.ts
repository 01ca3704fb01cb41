import { EventStoreDBClient, StreamNotFoundError } from '@eventstore/db-client';
import { consume } from './reads';

/**
 * @eventstore/db-client 6 parses only esdb:// and esdb+discover://; KurrentDB documents the same
 * URIs under kurrentdb:// (and kdb://), which the configuration accepts too.
 */
function clientConnectionString(connectionString: string): string {
  return connectionString.replace(/^(?:kurrentdb|kurrent|kdb)(\+discover)?:\/\//i, 'esdb$1://');
}

/** Credentials may sit in the connection string; error messages and logs must not carry them. */
export function redact(connectionString: string): string {
  return connectionString.replace(/\/\/[^@/]*@/, '//***@');
}

async function probe(client: EventStoreDBClient, timeoutMs: number): Promise<void> {
  // Any stream will do: "not found" is an answer from the server just as well as events are.
  const read = client.readStream('runledger-connection-probe', { maxCount: 1 });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const drained = consume(read, () => true);
  drained.catch(() => undefined);
  try {
    await Promise.race([drained, timeout]);
  } catch (error) {
    if (error instanceof StreamNotFoundError) return;
    await read.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A client that has answered one cheap read. The client itself connects lazily, so without the
 * probe a wrong address would only surface at the first request.
 */
export async function openClient(connectionString: string, timeoutMs: number): Promise<EventStoreDBClient> {
  let client: EventStoreDBClient;
  try {
    client = EventStoreDBClient.connectionString(clientConnectionString(connectionString));
  } catch (error) {
    throw new Error(`invalid EventStoreDB connection string ${redact(connectionString)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    await probe(client, timeoutMs);
  } catch (error) {
    await client.dispose().catch(() => undefined);
    throw new Error(`cannot reach EventStoreDB at ${redact(connectionString)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return client;
}
