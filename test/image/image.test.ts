// The image `make image` builds, run once from its unpacked OCI archive with runc: its entry point
// answers --version, and Chromium starts headless as a browser pod runs it (uid 10001, read-only
// root file system, no capabilities, its own network namespace, emptyDirs at /work and /tmp).
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumArguments } from '../../src/runtime/chromium/local-chromium-provider.js';
import { RUNTIME_PACKAGES } from '../../src/schemas/runtime-packages.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
// BROWSERFN_IMAGE_ARCHIVE runs the same checks on another build, e.g. deploy/Dockerfile's pushed to an
// oci-archive tagged with the version.
const archive = process.env.BROWSERFN_IMAGE_ARCHIVE || join(root, '.cache', 'image', `browserfn-${version}.oci.tar`);

interface RuntimeSpec {
  process: { args: string[]; env: string[]; user: { uid: number; gid: number }; cwd: string; terminal?: boolean; noNewPrivileges?: boolean; capabilities?: Record<string, string[]> };
  root: { path: string; readonly?: boolean };
  mounts: { destination: string; type: string; source: string; options?: string[] }[];
  linux?: { namespaces?: { type: string }[] };
}

function unavailableBecause(): string | undefined {
  if (!existsSync(archive)) return `${archive} does not exist: \`make test\` builds it first (\`make image\`); a bare mocha run does not`;
  for (const tool of ['umoci', 'runc']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (scripts/image/ensure-tools.sh installs it)`;
  }
  if (process.getuid?.() !== 0) return 'runc runs the image as root here, and this run is not root';
  return undefined;
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stderr}`);
}

const unavailable = unavailableBecause();

if (unavailable) {
  const banner = '!'.repeat(100);
  console.warn(`\n${banner}\n!! SKIPPING the image test: ${unavailable}.\n${banner}\n`);
  describe.skip(`image (make image) — SKIPPED: ${unavailable}`, function () {
    it('runs browserfn --version and Chromium from the unpacked image');
  });
} else {
  describe('image (make image)', function () {
    this.timeout(120_000);
    let dir = '';
    let bundle = '';
    let imageSpec: RuntimeSpec;
    const containers: string[] = [];

    before(function () {
      this.timeout(600_000);
      dir = mkdtempSync(join(tmpdir(), 'browserfn-image-'));
      const layout = join(dir, 'layout');
      bundle = join(dir, 'bundle');
      mkdirSync(layout);
      run('tar', ['-xf', archive, '-C', layout]);
      run('umoci', ['unpack', '--image', `${layout}:${version}`, bundle]);
      rmSync(layout, { recursive: true });
      imageSpec = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as RuntimeSpec;
    });

    after(function () {
      for (const id of containers) spawnSync('runc', ['delete', '--force', id]);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Starts the image with `args` as a pod's container would run; resolves with its output once it exits. */
    function start(args: string[], env: string[], onStderr?: (text: string, stop: () => void) => void, cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
      const spec: RuntimeSpec = structuredClone(imageSpec);
      spec.process.args = args;
      if (cwd) spec.process.cwd = cwd;
      spec.process.env = [...spec.process.env.filter((e) => !env.some((own) => own.split('=')[0] === e.split('=')[0])), ...env];
      spec.process.terminal = false;
      spec.process.noNewPrivileges = true;
      spec.process.capabilities = { bounding: [], effective: [], inheritable: [], permitted: [], ambient: [] };
      spec.root.readonly = true;
      // The pod's emptyDirs (fsGroup 10001). With a read-only root, Chromium needs a writable /tmp: its
      // profile lock socket goes there, and its shared memory too under --disable-dev-shm-usage.
      const emptyDir = ['nosuid', 'nodev', 'mode=0770', 'uid=10001', 'gid=10001', 'size=512m'];
      spec.mounts.push({ destination: '/work', type: 'tmpfs', source: 'tmpfs', options: emptyDir }, { destination: '/tmp', type: 'tmpfs', source: 'tmpfs', options: emptyDir });
      writeFileSync(join(bundle, 'config.json'), JSON.stringify(spec));
      const id = `browserfn-image-test-${process.pid}-${containers.length}`;
      containers.push(id);
      const child = spawn('runc', ['run', '--bundle', bundle, id], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const stop = () => spawnSync('runc', ['kill', id, 'TERM']);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        onStderr?.(stderr, stop);
      });
      return new Promise((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    it('runs as uid 10001 with tini, then browserfn, as its entry point', function () {
      assert.equal(imageSpec.process.user.uid, 10001);
      assert.deepEqual(imageSpec.process.args.slice(0, 3), ['/usr/bin/tini', '--', 'browserfn']);
    });

    it('prints the package version for `browserfn --version`, as entry point and as a pod command', async function () {
      const asEntryPoint = await start([...imageSpec.process.args.slice(0, 3), '--version'], []);
      assert.equal(asEntryPoint.code, 0, asEntryPoint.stderr);
      assert.equal(asEntryPoint.stdout.trim(), version);
      // Pods replace the entry point with `browserfn <agent>`: the launcher then puts tini at PID 1 itself.
      const asCommand = await start(['browserfn', '--version'], []);
      assert.equal(asCommand.code, 0, asCommand.stderr);
      assert.equal(asCommand.stdout.trim(), version);
    });

    it('provides the runtime packages bundles import, from /app/node_modules', async function () {
      // Loaded as a bundle loads them: ESM imports resolved from the runtime modules folder.
      const script = `for (const name of ${JSON.stringify(RUNTIME_PACKAGES)}) await import(name);`;
      const result = await start(['node', '--input-type=module', '-e', script], [], undefined, '/app');
      assert.equal(result.code, 0, result.stderr);
    });

    it('runs esbuild, with which build pods bundle', async function () {
      const script = "const { transform } = await import('esbuild'); process.stdout.write((await transform('let answer: number = 42', { loader: 'ts', minify: true })).code);";
      const result = await start(['node', '--input-type=module', '-e', script], ['HOME=/work'], undefined, '/app');
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, 'let answer=42;\n');
    });

    it('has both Chromium builds, and names the headless shell the one sessions run', async function () {
      const result = await start(['sh', '-c', 'test -x /usr/bin/chromium && test -x "$BROWSERFN_CHROMIUM_PATH" && echo "$BROWSERFN_CHROMIUM_PATH"'], ['HOME=/work']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), '/usr/lib/chromium/chromium-headless-shell');
    });

    it('starts Chromium headless with the pods\' flags, printing its DevTools endpoint', async function () {
      let endpoint = '';
      // As the browser pod's Chromium sidecar runs it (src/controller/pods/templates.ts): the image's
      // `chromium` command runs the build its BROWSERFN_CHROMIUM_PATH names.
      const result = await start(['chromium', ...chromiumArguments('/work/chromium/profile', undefined, 0, { executablePath: '/usr/lib/chromium/chromium-headless-shell' })], ['HOME=/work/chromium'], (stderr, stop) => {
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
        if (match && !endpoint) {
          endpoint = match[1];
          stop();
        }
      });
      assert.match(endpoint, /^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\//, `no DevTools endpoint; exit ${result.code}; stderr: ${result.stderr.slice(-2000)}`);
    });
  });
}
