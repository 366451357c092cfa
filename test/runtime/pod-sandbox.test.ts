// The pod sandbox's command line: every pasta forwarding explicit (its defaults would mirror host
// loopback ports into the pod), the namespaces bwrap must create, and mounts as given; a network
// made ahead is joined, never started again.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { networkHolderCommand, sandboxCommand } from '../../src/runtime/sandbox/pod-sandbox.js';

const spec = {
  forwardPorts: [3000],
  mounts: [
    { source: '/data/pods/p1/work', target: '/work', writable: true },
    { source: '/srv/browserfn/dist', target: '/opt/browserfn/dist' },
  ],
  command: ['node', 'launcher.js'],
};

/** The values following each occurrence of `flag`. */
function after(args: string[], flag: string, count = 1): string[][] {
  return args.flatMap((arg, i) => (arg === flag ? [args.slice(i + 1, i + 1 + count)] : []));
}

describe('pod sandbox command', () => {
  it('own network: pasta forwards only the given ports to the host, nothing inbound, no auto', () => {
    const [file, args] = sandboxCommand({ ...spec, network: 'pasta' });
    assert.equal(file, 'pasta');
    const pasta = args.slice(0, args.indexOf('--'));
    assert.deepEqual(after(pasta, '-T'), [['3000']]);
    for (const flag of ['-t', '-u', '-U']) assert.deepEqual(after(pasta, flag), [['none']], flag);
    assert.ok(pasta.includes('--no-map-gw'));
    assert.equal(args[args.indexOf('--') + 1], 'bwrap');
  });

  it('a forwarded port may lead to another host port (the pod\'s own entrance), the others to their own', () => {
    const [, args] = sandboxCommand({ ...spec, forwardPorts: [3000, 4000], hostPorts: { 3000: 41234 }, network: 'pasta' });
    assert.deepEqual(after(args.slice(0, args.indexOf('--')), '-T'), [['3000:41234,4000']]);
  });

  it('no forwarded port: nothing of the host loopback at all', () => {
    const [, args] = sandboxCommand({ ...spec, forwardPorts: [], network: 'pasta' });
    assert.deepEqual(after(args.slice(0, args.indexOf('--')), '-T'), [['none']]);
  });

  it('a network made ahead: bwrap joins the holder\'s user, network and PID namespaces (as pasta would start it) instead of starting pasta', () => {
    const [file, args] = sandboxCommand({ ...spec, network: 'pasta', joinNetworkOf: 4242, maxProcesses: 512 });
    assert.equal(file, 'prlimit', 'the process limit still wraps the whole sandbox');
    const join = args.slice(args.indexOf('nsenter'), args.indexOf('bwrap'));
    assert.deepEqual(join, ['nsenter', '--target=4242', '--user', '--net', '--pid', '--preserve-credentials', '--']);
    assert.ok(!args.includes('pasta'));
  });

  it('the network made ahead is pasta with the pod\'s forwardings around the holder', () => {
    const [file, args] = networkHolderCommand({ forwardPorts: [3000], hostPorts: { 3000: 41234 } }, ['cat']);
    assert.equal(file, 'pasta');
    assert.deepEqual(after(args, '-T'), [['3000:41234']]);
    for (const flag of ['-t', '-u', '-U']) assert.deepEqual(after(args, flag), [['none']], flag);
    assert.deepEqual(args.slice(args.indexOf('--') + 1), ['cat']);
  });

  it('bwrap: its own user, PID, IPC and UTS namespaces, no capabilities, dies with its parent; mounts as given', () => {
    const [file, args] = sandboxCommand({ ...spec, network: 'host' });
    assert.equal(file, 'bwrap', 'the host network opt-in runs without pasta');
    for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session']) assert.ok(args.includes(flag), flag);
    assert.deepEqual(after(args, '--cap-drop'), [['ALL']]);
    assert.deepEqual(after(args, '--bind', 2), [['/data/pods/p1/work', '/work']]);
    assert.ok(after(args, '--ro-bind', 2).some(([from, to]) => from === '/srv/browserfn/dist' && to === '/opt/browserfn/dist'));
    assert.ok(!after(args, '--ro-bind', 2).some(([from]) => from === '/' || from === '/etc'), 'neither / nor all of /etc');
    assert.deepEqual(args.slice(args.lastIndexOf('--') + 1), ['node', 'launcher.js']);
  });

  it("empties the operator's settings folders under /usr that exist (npm's global npmrc), before the pod's own mounts", () => {
    const [, args] = sandboxCommand({ ...spec, network: 'host', mounts: [{ source: '/usr/etc/npmrc', target: '/usr/etc/npmrc' }] });
    const hidden = after(args, '--tmpfs').map(([folder]) => folder);
    assert.deepEqual(hidden.filter((folder) => folder.startsWith('/usr')), ['/usr/etc', '/usr/local/etc'].filter((folder) => existsSync(folder)));
    if (existsSync('/usr/etc')) assert.ok(args.indexOf('/usr/etc') < args.lastIndexOf('/usr/etc/npmrc'), 'a file given to the pod is mounted over the emptied folder');
  });

  it('a process limit wraps the whole sandbox in prlimit, so a pod cannot fork without bound', () => {
    const [file, args] = sandboxCommand({ ...spec, network: 'pasta', maxProcesses: 512 });
    assert.equal(file, 'prlimit');
    assert.deepEqual(args.slice(0, 3), ['--nproc=512:512', '--', 'pasta']);
    assert.equal(sandboxCommand({ ...spec, network: 'pasta' })[0], 'pasta', 'no limit given: none set');
  });
});
