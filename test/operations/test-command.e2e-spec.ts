import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

describe('npm test without Chromium', () => {
  it('stops before anything else, saying what is missing and how to install it', () => {
    const run = spawnSync('bash', [join(__dirname, '..', '..', 'scripts', 'test.sh')], {
      env: { PATH: process.env.PATH ?? '', HERALD_TEST_CHROMIUM: '/nonexistent/chromium' },
      encoding: 'utf8',
    });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr:
        "npm test needs Chromium at /nonexistent/chromium (the queue dashboard's browser test). Install it:\n" +
        '  sudo apt-get install -y chromium      # Debian, Ubuntu\n' +
        'then run npm test again.\n',
    });
  });
});
