// Bluesky's reference PDS with an in-memory PLC directory beside it, in this process, for the
// tests (test/support/stand-ins/reference-pds.ts starts it on the Node that scripts/install-pds.sh
// installed). Everything comes from the environment the test gives:
//   HOST           the loopback address both listen on (127.0.0.x)
//   PDS_PORT       the PDS's port; PLC_PORT the directory's
//   PDS_JWT_SECRET the secret the PDS signs its tokens with (a test signs an expired one with it)
//   DATA_DIR       an empty folder for the PDS's databases and blobs
// When both answer, one line of JSON goes to stdout: {"pds": url, "plc": url}.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Secp256k1Keypair } from '@atproto/crypto';
import { PDS, envToCfg, envToSecrets, readEnv } from '@atproto/pds';
import plc from '@did-plc/server';

const { PlcServer, Database: PlcDatabase } = plc;
const host = process.env.HOST ?? '127.0.0.1';
const pdsPort = Number(process.env.PDS_PORT);
const plcPort = Number(process.env.PLC_PORT);
const dataDir = process.env.DATA_DIR;
if (!pdsPort || !plcPort || !dataDir || !process.env.PDS_JWT_SECRET) {
  console.error('start-pds.mjs needs HOST, PDS_PORT, PLC_PORT, PDS_JWT_SECRET and DATA_DIR');
  process.exit(2);
}

/** Express's listen, bound to the test's loopback address rather than every interface. */
function onHost(app) {
  const listen = app.listen.bind(app);
  app.listen = (port, ...rest) => listen(port, host, ...rest);
}

const directory = PlcServer.create({ db: PlcDatabase.mock(), port: plcPort });
onHost(directory.app);
await directory.start();
const plcUrl = `http://${host}:${plcPort}`;

const rotationKey = await Secp256k1Keypair.create({ exportable: true });
const blobs = join(dataDir, 'blobs');
mkdirSync(blobs, { recursive: true });
Object.assign(process.env, {
  PDS_HOSTNAME: 'localhost',
  PDS_DEV_MODE: 'true',
  PDS_RATE_LIMITS_ENABLED: 'true',
  PDS_INVITE_REQUIRED: 'false',
  PDS_SERVICE_HANDLE_DOMAINS: '.test',
  PDS_DID_PLC_URL: plcUrl,
  PDS_DATA_DIRECTORY: dataDir,
  PDS_BLOBSTORE_DISK_LOCATION: blobs,
  PDS_ADMIN_PASSWORD: process.env.PDS_ADMIN_PASSWORD ?? 'admin-pass',
  PDS_PLC_ROTATION_KEY_K256_PRIVATE_KEY_HEX: Buffer.from(await rotationKey.export()).toString(
    'hex',
  ),
  PDS_CRAWLERS: '',
  LOG_ENABLED: process.env.LOG_ENABLED ?? 'false',
});
const env = readEnv();
const pds = await PDS.create(envToCfg(env), envToSecrets(env));
onHost(pds.app);
await pds.start();

process.stdout.write(`${JSON.stringify({ pds: `http://${host}:${pdsPort}`, plc: plcUrl })}\n`);

async function stop() {
  await pds.destroy().catch(() => undefined);
  await directory.destroy().catch(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
// The test's end closes stdin: then this process ends too, even if the test was killed.
process.stdin.on('end', () => void stop());
process.stdin.resume();
