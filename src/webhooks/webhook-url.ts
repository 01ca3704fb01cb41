import { addressProblem } from './delivery/address-policy';
import { WebhookSettings } from './webhook-settings';

/** The longest URL an endpoint may have, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Why `raw` cannot be an endpoint's URL (docs/webhooks.md#security), or null. */
export async function urlProblem(raw: string, settings: Pick<WebhookSettings, 'allowHttp' | 'allowPrivate'>): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && settings.allowHttp)) {
    return settings.allowHttp ? 'url must be https or http' : 'url must be https (plain http only with WEBHOOK_ALLOW_HTTP=true)';
  }
  if (url.username || url.password) return 'url must not hold credentials';
  const problem = await addressProblem(url, settings.allowPrivate);
  return problem === null ? null : `${problem} (allowed only with WEBHOOK_ALLOW_PRIVATE=true)`;
}
