import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { AccountsService } from '../../domains/accounts/accounts.service';
import { PlatformConnectors } from '../../domains/platforms/platform-connectors';
import { ApiKeysService } from '../../domains/api-keys/api-keys.service';
import { ChannelsService } from '../../domains/channels/channels.service';
import { AppConfig } from '../../infrastructure/config/config';
import { ProjectsService } from '../../domains/projects/projects.service';
import { AppError } from '../../http/errors/error-codes';
import { GlobalRole, UsersService } from '../../domains/users/users.service';
import { CliModule } from './cli.module';

export const DEMO_EMAIL = 'demo@herald.local';
const DEMO_PROJECT = 'Demo project';

export interface CliOutput {
  out(line: string): void;
}

export const USAGE = `Usage: npm run cli -- <command>
  grant-admin <email>      make an existing user an administrator (may create API keys)
  revoke-admin <email>     take that back
  grant-operator <email>   make an existing user an operator (runs the queue dashboard and its
                           actions over every project)
  revoke-operator <email>  take that back
  reset-password <email>   give the user a new random password, print it, and end their sessions
  create-key <email> [--test]
                           print a new API key of the user (a test key with --test)
  seed-demo                create (once) a demo user (administrator and operator), project,
                           platform account and channels, and print a new live API key and a
                           new test key with curl lines`;

const ROLE_COMMANDS: Record<string, { role: GlobalRole; granted: boolean; done: string }> = {
  'grant-admin': { role: 'admin', granted: true, done: 'is an administrator' },
  'revoke-admin': { role: 'admin', granted: false, done: 'is no longer an administrator' },
  'grant-operator': { role: 'operator', granted: true, done: 'is an operator' },
  'revoke-operator': { role: 'operator', granted: false, done: 'is no longer an operator' },
};

/** One secret alone on stdout: `KEY=$(npm run cli --silent -- create-key a@b.c --test)`. */
interface UserCommand {
  flags: readonly string[];
  run(context: INestApplicationContext, email: string, flags: Set<string>): Promise<string>;
}

const USER_COMMANDS: Record<string, UserCommand> = {
  'reset-password': {
    flags: [],
    async run(context, email) {
      const password = randomBytes(12).toString('base64url');
      await context.get(UsersService).resetPassword(email, password);
      return password;
    },
  },
  'create-key': {
    flags: ['--test'],
    async run(context, email, flags) {
      const user = await context.get(UsersService).findByEmail(email);
      if (!user) throw new AppError('user_not_found', `No user with email ${email}`);
      const mode = flags.has('--test') ? 'test' : 'live';
      const name = `cli ${mode} ${new Date().toISOString()}`;
      return (await context.get(ApiKeysService).create(user.id, { name, mode })).key;
    },
  },
};

/** Answers the exit code. */
export async function runCli(
  args: string[],
  config: AppConfig,
  output: CliOutput,
): Promise<number> {
  const [command, ...rest] = args;
  const roleCommand = ROLE_COMMANDS[command ?? ''] as (typeof ROLE_COMMANDS)[string] | undefined;
  const userCommand = USER_COMMANDS[command ?? ''] as UserCommand | undefined;
  if (!roleCommand && !userCommand && command !== 'seed-demo') {
    output.out(USAGE);
    return command === undefined || command === 'help' ? 0 : 2;
  }
  const context = await NestFactory.createApplicationContext(CliModule.forRoot(config), {
    logger: ['error'],
  });
  try {
    if (roleCommand) return await setRole(context, command, roleCommand, rest, output);
    if (userCommand) return await forUser(context, command, userCommand, rest, output);
    return await seedDemo(context, config, output);
  } finally {
    await context.close();
  }
}

async function setRole(
  context: INestApplicationContext,
  command: string,
  { role, granted, done }: (typeof ROLE_COMMANDS)[string],
  args: string[],
  output: CliOutput,
): Promise<number> {
  const [email] = args;
  if (!email || args.length !== 1) {
    output.out(`Usage: npm run cli -- ${command} <email>`);
    return 2;
  }
  try {
    const user = await context.get(UsersService).setRole(email, role, granted);
    output.out(`${user.email} ${done}`);
    return 0;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'user_not_found') throw error;
    output.out(`No user with email ${email}`);
    return 1;
  }
}

async function forUser(
  context: INestApplicationContext,
  command: string,
  { flags, run }: UserCommand,
  args: string[],
  output: CliOutput,
): Promise<number> {
  const given = args.filter((arg) => arg.startsWith('--'));
  const [email, ...extra] = args.filter((arg) => !arg.startsWith('--'));
  if (!email || extra.length > 0 || given.some((flag) => !flags.includes(flag))) {
    output.out(`Usage: npm run cli -- ${command} <email>${flags.map((f) => ` [${f}]`).join('')}`);
    return 2;
  }
  try {
    output.out(await run(context, email, new Set(given)));
    return 0;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'user_not_found') throw error;
    output.out(`No user with email ${email}`);
    return 1;
  }
}

/** Idempotent: a second run keeps every row and only adds a fresh API key (keys are shown once). */
async function seedDemo(
  context: INestApplicationContext,
  config: AppConfig,
  output: CliOutput,
): Promise<number> {
  const users = context.get(UsersService);
  const projects = context.get(ProjectsService);
  let user = await users.findByEmail(DEMO_EMAIL);
  if (!user) {
    const password = randomBytes(12).toString('base64url');
    user = await users.register(DEMO_EMAIL, password, 'Demo user');
    output.out(`Created user ${DEMO_EMAIL} with password ${password}`);
  } else {
    output.out(
      `User ${DEMO_EMAIL} exists; its password is unchanged (npm run cli -- reset-password ${DEMO_EMAIL} prints a new one)`,
    );
  }
  await users.setRole(DEMO_EMAIL, 'admin', true);
  await users.setRole(DEMO_EMAIL, 'operator', true);

  let project = (await projects.listAccessible(user.id)).find(
    (access) => access.project.name === DEMO_PROJECT,
  );
  if (!project) {
    project = await projects.create(user.id, DEMO_PROJECT, 'Europe/Moscow');
    // A placeholder: publishing to it fails until PUT /api/accounts/:id sets real credentials.
    const demo = await context.get(AccountsService).createDemo(project.project.id);
    output.out(
      `Created project "${DEMO_PROJECT}" (id ${project.project.id}) with a demo ${demo.displayName} account and ${demo.channels.length} channels`,
    );
  }
  const keys = context.get(ApiKeysService);
  const now = new Date().toISOString();
  const key = await keys.create(user.id, { name: `demo ${now}` });
  const testKey = await keys.create(user.id, { name: `demo test ${now}`, mode: 'test' });
  const api = `${config.publicBaseUrl}/api/public/v1`;
  const [channel] = await context.get(ChannelsService).listForProject(project.project.id);
  const platformName = context.get(PlatformConnectors).get(channel.platform).displayName;
  const posts = `${api}/projects/${project.project.id}/posts`;
  output.out('');
  output.out(`API key (shown once): ${key.key}`);
  output.out(`Try: curl -s -H "Authorization: Bearer ${key.key}" ${api}/projects`);
  output.out('');
  output.out(`Test key (shown once): ${testKey.key}`);
  output.out(
    `Its posts go through the whole pipeline and end published, but nothing is sent to ${platformName}.`,
  );
  output.out('See the demo channels, publish a test post to the first, read it back as published:');
  output.out(
    `  curl -s -H "Authorization: Bearer ${testKey.key}" ${api}/projects/${project.project.id}/channels`,
  );
  output.out(
    `  curl -s -X POST -H "Authorization: Bearer ${testKey.key}" -H 'content-type: application/json' ` +
      `-d '{"text":"Hello from Herald","targets":[{"channel_ref":"${channel.id}"}],"publish_now":true}' ${posts}`,
  );
  output.out(`  curl -s -H "Authorization: Bearer ${testKey.key}" '${posts}?limit=1'`);
  return 0;
}
