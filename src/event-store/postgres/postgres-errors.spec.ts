import { StoreUnavailableError } from '../event-store';
import { asStoreUnavailable, connectionIsBroken, isUnavailable, sqlState } from './postgres-errors';

/** What node-postgres rejects with when the server answers with an error. */
const serverError = (code: string, message = 'from the server') => Object.assign(new Error(message), { code, severity: 'ERROR' });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: 'connect' });

describe('PostgreSQL error mapping', () => {
  it.each([
    ['57P01', 'admin shutdown'],
    ['57P02', 'crash shutdown'],
    ['57P03', 'cannot connect now'],
    ['53100', 'disk full'],
    ['53200', 'out of memory'],
    ['53300', 'too many connections'],
    ['08006', 'connection failure'],
    ['58030', 'I/O error'],
    ['40001', 'serialization failure'],
    ['40P01', 'deadlock'],
    ['25006', 'read-only transaction (a standby after failover)'],
  ])('%s (%s) is unavailability', (code) => {
    const mapped = asStoreUnavailable(serverError(code), 'an append');
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as Error).message).toContain(code);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND'])('socket error %s is unavailability', (code) => {
    expect(isUnavailable(socketError(code))).toBe(true);
    expect(sqlState(socketError(code))).toBeUndefined();
  });

  it.each(['Connection terminated unexpectedly', 'Connection terminated', 'timeout exceeded when trying to connect'])(
    'the driver saying "%s" is unavailability',
    (message) => expect(isUnavailable(new Error(message))).toBe(true),
  );

  it('a host whose every address refuses is unavailability', () => {
    expect(isUnavailable(new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')], ''))).toBe(true);
  });

  it('works for errors from another realm (what jest gives for Node-made errors)', () => {
    expect(isUnavailable({ message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' })).toBe(true);
  });

  it.each([
    ['23505', 'unique violation: handled by the group commit'],
    ['42P01', 'undefined table'],
    ['22P02', 'invalid text representation'],
    ['42501', 'insufficient privilege'],
  ])('%s (%s) is not unavailability and passes through unchanged', (code) => {
    const error = serverError(code);
    expect(asStoreUnavailable(error, 'an append')).toBe(error);
  });

  it('keeps a connection after an error the server answered, drops it after a lost one', () => {
    expect(connectionIsBroken(serverError('23505'))).toBe(false);
    expect(connectionIsBroken(serverError('57P01'))).toBe(true);
    expect(connectionIsBroken(new Error('Connection terminated unexpectedly'))).toBe(true);
  });
});
