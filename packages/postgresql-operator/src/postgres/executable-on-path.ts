import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the directories of `path` (a PATH value), as the shell would find it. */
export async function executableOnPath(name: string, path: string): Promise<string | undefined> {
  for (const directory of path.split(delimiter).filter((entry) => entry !== '')) {
    const candidate = join(directory, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}
