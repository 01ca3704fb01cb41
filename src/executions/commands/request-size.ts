import { jsonText } from '../../common/json-text';
import { VolumeLimits } from '../../config/volume-limits';
import { StartExecutionCommand } from './start-execution.command';

/** Null when the start's free-form parts fit their bounds, else which one does not and by how much. */
export function requestSizeProblem(request: StartExecutionCommand['request'], limits: VolumeLimits): string | null {
  const textBytes = Buffer.byteLength(request.input.text, 'utf8');
  if (textBytes > limits.maxInputTextBytes) {
    return `input.text is ${textBytes} bytes; at most ${limits.maxInputTextBytes} are allowed (MAX_INPUT_TEXT_BYTES)`;
  }
  const configBytes = Buffer.byteLength(jsonText(request.config), 'utf8');
  if (configBytes > limits.maxConfigBytes) {
    return `config is ${configBytes} bytes as JSON; at most ${limits.maxConfigBytes} are allowed (MAX_CONFIG_BYTES)`;
  }
  return null;
}
