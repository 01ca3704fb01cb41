import { codePointLength } from '../../common/code-points';

// RFC 6838 restricted names, with RFC 9110 parameters; wildcards are not names, so they fail.
const NAME = '[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}';
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const MEDIA_TYPE = new RegExp(`^${NAME}/${NAME}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|${QUOTED}))*$`);

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

function isAbsoluteUri(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** docs/api.md#artifacts: null when the descriptor may be stored, else what is wrong with it. */
export function artifactProblem(artifact: { name: unknown; mediaType: unknown; uri: unknown; metadata: unknown }): string | null {
  const { name, mediaType, uri, metadata } = artifact;
  if (typeof name !== 'string' || name.length === 0 || codePointLength(name) > 255) {
    return 'name must be a non-empty string of at most 255 characters';
  }
  if (typeof mediaType !== 'string' || !MEDIA_TYPE.test(mediaType)) {
    return `mediaType ${JSON.stringify(mediaType)} is not a valid type/subtype media type`;
  }
  if (uri !== null && (typeof uri !== 'string' || !isAbsoluteUri(uri))) return `uri ${JSON.stringify(uri)} is not an absolute URI`;
  if (!isObject(metadata)) return 'metadata must be a JSON object';
  return null;
}
