/**
 * The environment a stdio server inherits from the host. Only variables a process needs to
 * run at all are passed; API keys and other secrets in the host's environment stay with the
 * host unless the config's `env` hands them over on purpose.
 */
import process from 'node:process';

const INHERITED_POSIX = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
const INHERITED_WINDOWS = [
  'APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES',
];

export function inheritedEnvironment(): Record<string, string> {
  const names = process.platform === 'win32' ? INHERITED_WINDOWS : INHERITED_POSIX;
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    // Exported shell functions ("() { …") are skipped: they are a known injection vector.
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}
