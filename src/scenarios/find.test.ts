import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findScenarioFiles } from './find.js';

/** Writes each `relative path -> content` under `root` (folders made as needed). */
async function layout(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

describe('findScenarioFiles', () => {
  let tmp: string;
  let cwd: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-find-'));
    cwd = process.cwd();
  });
  afterEach(async () => {
    process.chdir(cwd);
    await rm(tmp, { recursive: true, force: true });
  });
  const files = async (...patterns: string[]): Promise<string[]> => (await findScenarioFiles(patterns)).map((f) => path.relative(tmp, f.file));

  describe('a folder', () => {
    it('leads to its files a scenario can be in, subfolders included, hidden ones and other extensions passed over; none of them named', async () => {
      await layout(tmp, {
        'a.json': '{}',
        'LICENSE': 'MIT',
        'SOURCE.md': '# where from',
        'deep/er/b.YAML': 'x: 1',
        'deep/c.traj': '{}',
        'deep/d.jsonl': '',
        'deep/e.yml': '',
        '.cache/f.json': '{}',
        'deep/.g.json': '{}',
      });
      const found = await findScenarioFiles([tmp]);
      expect(found.map((f) => path.relative(tmp, f.file))).toEqual(['a.json', 'deep/c.traj', 'deep/d.jsonl', 'deep/e.yml', 'deep/er/b.YAML']);
      expect(found.every((f) => !f.named)).toBe(true);
    });

    it('follows a symlinked folder and a symlinked file (regression: both were skipped silently)', async () => {
      await layout(tmp, { 'data/real/a.json': '{}', 'elsewhere/b.json': '{}', 'outside/c.json': '{}' });
      await symlink(path.join(tmp, 'elsewhere'), path.join(tmp, 'data/linked'));
      await symlink(path.join(tmp, 'outside/c.json'), path.join(tmp, 'data/real/c-link.json'));
      expect(await files(path.join(tmp, 'data'))).toEqual(['data/linked/b.json', 'data/real/a.json', 'data/real/c-link.json']);
    });

    it('walks a symlink cycle once and ends (a link to an ancestor, and two links into each other)', async () => {
      await layout(tmp, { 'root/a.json': '{}', 'root/sub/b.json': '{}', 'x/c.json': '{}', 'y/d.json': '{}' });
      await symlink(path.join(tmp, 'root'), path.join(tmp, 'root/sub/back-to-root'));
      await symlink(path.join(tmp, 'y'), path.join(tmp, 'x/to-y'));
      await symlink(path.join(tmp, 'x'), path.join(tmp, 'y/to-x'));
      await symlink(path.join(tmp, 'x'), path.join(tmp, 'root/to-x'));
      expect(await files(path.join(tmp, 'root'))).toEqual(['root/a.json', 'root/sub/b.json', 'root/to-x/c.json', 'root/to-x/to-y/d.json']);
    });

    it('gives each file once, whatever links and paths lead to it', async () => {
      await layout(tmp, { 'real/a.json': '{}' });
      await symlink(path.join(tmp, 'real'), path.join(tmp, 'alias'));
      await symlink(path.join(tmp, 'real/a.json'), path.join(tmp, 'real/a-again.json'));
      const found = await findScenarioFiles([path.join(tmp, 'real'), path.join(tmp, 'alias'), path.join(tmp, 'real/a.json')]);
      // The first path in order stands for the file; named, as one of its paths was.
      expect(found).toEqual([{ file: path.join(tmp, 'alias/a-again.json'), named: true }]);
    });

    it('passes over a link that leads nowhere', async () => {
      await layout(tmp, { 'a.json': '{}' });
      await symlink(path.join(tmp, 'gone.json'), path.join(tmp, 'dangling.json'));
      expect(await files(tmp)).toEqual(['a.json']);
    });

    it('with no file a scenario can be in is an error naming it', async () => {
      await layout(tmp, { 'README.md': '#' });
      await expect(findScenarioFiles([tmp])).rejects.toThrow(new RegExp(`^${tmp}: no scenario files found$`));
    });
  });

  describe('a file', () => {
    it('is named, whatever its extension', async () => {
      await layout(tmp, { 'notes.txt': '{}' });
      expect(await findScenarioFiles([path.join(tmp, 'notes.txt')])).toEqual([{ file: path.join(tmp, 'notes.txt'), named: true }]);
    });

    it('that does not exist is an error naming it', async () => {
      const nowhere = path.join(tmp, 'nowhere.json');
      await expect(findScenarioFiles([nowhere])).rejects.toThrow(new RegExp(`^${nowhere}: no such file or directory$`));
      // A command whose paths come from a flag names the flag.
      await expect(findScenarioFiles([nowhere], (p) => `--scenario ${p}`)).rejects.toThrow(`--scenario ${nowhere}: no such file or directory`);
    });

    it.runIf(process.platform === 'linux')('that is a device is an error saying so, not that it does not exist', async () => {
      await expect(findScenarioFiles(['/dev/null'])).rejects.toThrow('/dev/null: not a file or folder (a device, FIFO or socket)');
    });

    it('whose name has glob characters is read as a path when it exists', async () => {
      await layout(tmp, { 'run[1].json': '{}', 'run1.json': '{}' });
      expect(await files(path.join(tmp, 'run[1].json'))).toEqual(['run[1].json']);
    });
  });

  describe('a glob', () => {
    beforeEach(() =>
      layout(tmp, {
        'scenarios/a.json': '{}',
        'scenarios/b.yaml': '',
        'scenarios/c.yml': '',
        'scenarios/README.md': '#',
        'scenarios/deep/er/d.json': '{}',
        'scenarios/.hidden/e.json': '{}',
        'logs/run-1/x.traj.json': '{}',
        'logs/run-2/y.traj.json': '{}',
        'logs/run-2/y.json': '{}',
      }),
    );

    it('regression: brace sets and ** (scenarios/**/*.{json,yaml} found nothing)', async () => {
      expect(await files(path.join(tmp, 'scenarios/**/*.{json,yaml}'))).toEqual(['scenarios/a.json', 'scenarios/b.yaml', 'scenarios/deep/er/d.json']);
    });

    it('keeps * and ? within one folder, and leaves hidden files to patterns that name them', async () => {
      expect(await files(path.join(tmp, 'scenarios/*.json'))).toEqual(['scenarios/a.json']);
      expect(await files(path.join(tmp, 'scenarios/?.y*ml'))).toEqual(['scenarios/b.yaml', 'scenarios/c.yml']);
      expect(await files(path.join(tmp, 'scenarios/.hidden/*.json'))).toEqual(['scenarios/.hidden/e.json']);
    });

    it('matches in hidden folders only where it names one; without ** no deeper than its folders', async () => {
      expect(await files(path.join(tmp, 'scenarios/**/.hidden/*.json'))).toEqual(['scenarios/.hidden/e.json']);
      expect(await files(path.join(tmp, '*/{.hidden,deep}/*.json'))).toEqual(['scenarios/.hidden/e.json']);
      expect(await files(path.join(tmp, '*/*/*/*.json'))).toEqual(['scenarios/deep/er/d.json']);
    });

    it('finds through a link what its depth allows, wherever the link points', async () => {
      // Two links to one folder: the walk reaches it deeper first (b < z), where the glob's depth stops it short.
      await layout(tmp, { 'real/sub/f.json': '{}', 'tree/b/.keep': '' });
      await symlink(path.join(tmp, 'real'), path.join(tmp, 'tree/b/target'));
      await symlink(path.join(tmp, 'real'), path.join(tmp, 'tree/z'));
      expect(await files(path.join(tmp, 'tree/*/*/*.json'))).toEqual(['tree/z/sub/f.json']);
    });

    it('leads to every file it matches, whatever its extension (the loader skips those of no known format)', async () => {
      const found = await findScenarioFiles([path.join(tmp, 'scenarios/*')]);
      expect(found.map((f) => path.relative(tmp, f.file))).toEqual(['scenarios/README.md', 'scenarios/a.json', 'scenarios/b.yaml', 'scenarios/c.yml']);
      expect(found.every((f) => !f.named)).toBe(true);
    });

    it('is read relative to the current folder, and follows symlinked folders', async () => {
      await symlink(path.join(tmp, 'logs'), path.join(tmp, 'scenarios/logs-link'));
      process.chdir(tmp);
      expect((await findScenarioFiles(['logs/**/*.traj.json'])).map((f) => f.file)).toEqual(['logs/run-1/x.traj.json', 'logs/run-2/y.traj.json']);
      expect((await findScenarioFiles(['./scenarios/**/y*.json'])).map((f) => f.file)).toEqual(['scenarios/logs-link/run-2/y.json', 'scenarios/logs-link/run-2/y.traj.json']);
    });

    it('that matches nothing is an error naming it', async () => {
      await expect(findScenarioFiles([path.join(tmp, 'scenarios/**/*.toml')])).rejects.toThrow(/^\/.*scenarios\/\*\*\/\*\.toml: no scenario files found$/);
    });
  });
});
