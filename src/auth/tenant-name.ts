/**
 * The one rule for a tenant's name, wherever it comes from (an API_KEYS entry or an OIDC token's
 * claim): names end up in stream names, read-model rows and log lines, so they are plain,
 * printable and short.
 */
export const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const TENANT_NAME_RULE = 'letters, digits, ".", "_", "-"; at most 128';

export const isTenantName = (value: unknown): value is string => typeof value === 'string' && TENANT_NAME.test(value);
