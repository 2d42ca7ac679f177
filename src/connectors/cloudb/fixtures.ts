// `cloudb` (fixtures only; DECISIONS.md: "a second provider whose fixtures hold normalized network state,
// mapped to the /ingest/cloudnet bundle shape"). CLOUDB_FIXTURES_DIR holds one `<account>.json` per
// account, provider-neutral:
//   { "account": "prod-eu", "region": "westeurope",
//     "networks":  [{ "id": "net-a", "peers": ["net-b"] }],
//     "subnets":   [{ "id": "sn-web", "network": "net-a", "public": true }],
//     "firewalls": [{ "id": "fw-web", "name": "web", "network": "net-a",
//                     "ingress": [{ "protocol": "tcp", "ports": "443", "from": ["0.0.0.0/0"] },
//                                 { "protocol": "tcp", "ports": "5432", "from_firewalls": ["fw-app"] }] }],
//     "vms":       [{ "id": "vm-1", "name": "web-1", "subnet": "sn-web", "public_ip": "203.0.113.7",
//                     "firewalls": ["fw-web"], "tags": { "classification": "pii" } }] }
// mapped to the cloudnet bundle: firewalls -> security groups, VMs -> instances, a public subnet -> a route
// table with a default route to an internet gateway, peers -> active peerings. The scope of each file is
// `cloudb:<account>/<region>`. A file that is not this shape is that account's failure, naming the value.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AccountFailure, AccountPull, ConnectorSource, PullResult } from '../connector.js';

const ID = /^[A-Za-z0-9._-]{1,64}$/;
const REGION = /^[a-z0-9-]{1,64}$/;

interface Rule {
  protocol?: string;
  ports?: string | number | number[];
  from?: string[];
  from_firewalls?: string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an operator's file, read field by field
type Json = Record<string, any>;

class ShapeError extends Error {}

function list(state: Json, key: string): Json[] {
  const value = state[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => !v || typeof v !== 'object'))
    throw new ShapeError(`/${key} must be a list of objects`);
  return value as Json[];
}

function id(value: unknown, pointer: string): string {
  if (typeof value !== 'string' || !ID.test(value))
    throw new ShapeError(
      `${pointer} ${JSON.stringify(value)} is not an id (letters, digits, . _ -; at most 64)`,
    );
  return value;
}

/** `443`, `"443"`, `"1000-2000"`, `"*"` (every port), `[80, 443]` -> port ranges */
function portRanges(ports: Rule['ports'], pointer: string): [number, number][] {
  if (ports === undefined || ports === '*') return [[0, 65535]];
  const one = (p: unknown): [number, number] => {
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(String(p).trim());
    const from = m ? Number(m[1]) : NaN;
    const to = m ? Number(m[2] ?? m[1]) : NaN;
    if (!(from >= 0 && to <= 65535 && from <= to))
      throw new ShapeError(`${pointer} ${JSON.stringify(p)} is not a port, a range a-b, or *`);
    return [from, to];
  };
  return Array.isArray(ports) ? ports.map(one) : [one(ports)];
}

/** Normalized network state -> the cloudnet bundle (AWS Describe* shapes). */
export function cloudbToCloudnet(state: Json): { account: string; region: string; bundle: Json } {
  if (!state || typeof state !== 'object' || Array.isArray(state))
    throw new ShapeError('/ must be an object');
  const account = id(state.account, '/account');
  const region = typeof state.region === 'string' && REGION.test(state.region) ? state.region : undefined;
  if (!region)
    throw new ShapeError(
      `/region ${JSON.stringify(state.region)} is not a region name (lowercase, digits, -)`,
    );
  const networks = list(state, 'networks');
  const subnets = list(state, 'subnets');
  const firewalls = list(state, 'firewalls');
  const vms = list(state, 'vms');
  const networkOfSubnet = new Map<string, string>();
  for (const [i, s] of subnets.entries())
    networkOfSubnet.set(id(s.id, `/subnets/${i}/id`), id(s.network, `/subnets/${i}/network`));
  const security_groups = firewalls.map((fw, i) => ({
    GroupId: id(fw.id, `/firewalls/${i}/id`),
    GroupName: typeof fw.name === 'string' ? fw.name : fw.id,
    ...(fw.network !== undefined && { VpcId: id(fw.network, `/firewalls/${i}/network`) }),
    IpPermissions: ((fw.ingress ?? []) as Rule[]).flatMap((rule, r) => {
      const at = `/firewalls/${i}/ingress/${r}`;
      const protocol = rule.protocol === undefined || rule.protocol === '*' ? '-1' : String(rule.protocol);
      return portRanges(rule.ports, `${at}/ports`).map(([from, to]) => ({
        IpProtocol: protocol,
        ...(protocol !== '-1' && { FromPort: from, ToPort: to }),
        IpRanges: (rule.from ?? []).filter((c) => !c.includes(':')).map((CidrIp) => ({ CidrIp })),
        Ipv6Ranges: (rule.from ?? []).filter((c) => c.includes(':')).map((CidrIpv6) => ({ CidrIpv6 })),
        UserIdGroupPairs: (rule.from_firewalls ?? []).map((g, k) => ({
          GroupId: id(g, `${at}/from_firewalls/${k}`),
        })),
      }));
    }),
  }));
  const instances = {
    Reservations: [
      {
        Instances: vms.map((vm, i) => {
          const subnet = vm.subnet === undefined ? undefined : id(vm.subnet, `/vms/${i}/subnet`);
          const network = vm.network ?? (subnet && networkOfSubnet.get(subnet));
          const tags = Object.entries((vm.tags ?? {}) as Record<string, unknown>).map(([Key, Value]) => ({
            Key,
            Value: String(Value),
          }));
          return {
            InstanceId: id(vm.id, `/vms/${i}/id`),
            ...(subnet && { SubnetId: subnet }),
            ...(network && { VpcId: network }),
            ...(typeof vm.public_ip === 'string' && { PublicIpAddress: vm.public_ip }),
            SecurityGroups: ((vm.firewalls ?? []) as unknown[]).map((g, k) => ({
              GroupId: id(g, `/vms/${i}/firewalls/${k}`),
            })),
            Tags: typeof vm.name === 'string' ? [{ Key: 'Name', Value: vm.name }, ...tags] : tags,
          };
        }),
      },
    ],
  };
  // Internet reachability is decided by routes once route tables are given: every subnet gets one, a
  // public subnet's with a default route to an internet gateway.
  const route_tables = subnets.map((s) => ({
    RouteTableId: `rt-${s.id}`,
    VpcId: s.network,
    Associations: [{ SubnetId: s.id }],
    Routes: s.public === true ? [{ DestinationCidrBlock: '0.0.0.0/0', GatewayId: `igw-${s.network}` }] : [],
  }));
  const vpc_peerings = networks.flatMap((n, i) =>
    ((n.peers ?? []) as unknown[])
      .map((p, k) => id(p, `/networks/${i}/peers/${k}`))
      // each pair once
      .filter((peer) => id(n.id, `/networks/${i}/id`) < peer)
      .map((peer) => ({
        VpcPeeringConnectionId: `pcx-${n.id}-${peer}`,
        RequesterVpcInfo: { VpcId: n.id },
        AccepterVpcInfo: { VpcId: peer },
        Status: { Code: 'active' },
      })),
  );
  const bundle: Json = { security_groups, instances, vpc_peerings };
  if (subnets.length) {
    bundle.subnets = subnets.map((s) => ({ SubnetId: s.id, VpcId: s.network }));
    bundle.route_tables = route_tables;
  }
  return { account, region, bundle };
}

export function createCloudbFixturesSource(options: { dir: string }): ConnectorSource {
  return {
    name: 'cloudb',
    mode: 'fixtures',
    async pull(signal: AbortSignal): Promise<PullResult> {
      const files = (await readdir(options.dir)).filter((f) => f.endsWith('.json')).sort();
      const accounts: AccountPull[] = [];
      const failures: AccountFailure[] = [];
      for (const file of files) {
        signal.throwIfAborted();
        const name = file.slice(0, -'.json'.length);
        try {
          const state = JSON.parse(await readFile(path.join(options.dir, file), 'utf8')) as Json;
          const { account, region, bundle } = cloudbToCloudnet(state);
          if (account !== name)
            throw new ShapeError(`/account ${JSON.stringify(account)} is not the file's name (${name})`);
          accounts.push({
            account,
            reports: [{ source: 'cloudnet', scope: `cloudb:${account}/${region}`, body: bundle }],
            calls: 0,
          });
        } catch (error) {
          failures.push({ account: name, error: `fixtures: ${file}: ${(error as Error).message}` });
        }
      }
      return { accounts, failures };
    },
  };
}
