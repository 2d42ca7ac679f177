// Settings that stop start-up: the one-line message loadSettings throws, or 'started' when it does not.
import { loadSettings } from '../../src/config/settings.js';

export function startupRefusal(env: Record<string, string>): string {
  try {
    loadSettings(env);
  } catch (error) {
    return (error as Error).message;
  }
  return 'started';
}
