// Source `iam`: the account authorization details document (`aws iam get-account-authorization-details`:
// UserDetailList, GroupDetailList, RoleDetailList, Policies). Users and roles become nodes named
// `<account>/<name>` (the account from the query, else their ARN). The policy evaluator
// (src/rules/iam/) reads each principal's effective permissions; trust policies draw ASSUMES (principals,
// account roots, GitHub Actions repositories, SAML providers); the escalation primitives draw
// CAN_ESCALATE_TO to the synthetic `<account>/account-admin` crown jewel or to the principal taken over,
// priced per DECISIONS "Escalation prices" (docs/model.md). A role's instance profiles are aliases of it,
// so an instance naming its profile (cloudnet, custodian) lands on the role.
import { crownJewel, readTags } from '../../markers/crown-jewel.js';
import { roleTrustExposure } from '../../markers/exposure.js';
import { ADMIN_HELD_PROBABILITY, escalationPrice } from '../../model/probability.js';
import {
  readDirectory,
  type AuthorizationDetails,
  type Directory,
  type Principal,
} from '../../rules/iam/directory.js';
import { findEscalations } from '../../rules/iam/index.js';
import { readTrust } from '../../rules/iam/trust.js';
import { accountParameter, parseIamArn, qualify } from './account.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

export const ACCOUNT_ADMIN = 'account-admin';

/** The alias an instance profile gives its role (cloudnet and custodian name a role so when only the profile is known). */
export function instanceProfileAlias(profile: string, account: string | undefined): string {
  return qualify(`instance-profile/${profile}`, account);
}

export interface IamSourceOptions {
  /** SEED_IAM_USERS: every IAM user is a starting node, marked `credential_exposed` (DECISIONS "IAM-user lens") */
  seedIamUsers?: boolean;
}

/** What the body says of the resources some primitives need (the terraform source passes its own). */
export type InventoryReader = (doc: AuthorizationDetails) => Directory['inventory'] | undefined;

export function createIamSource(
  options: IamSourceOptions & { inventory?: InventoryReader } = {},
): IngestSource {
  const list = { type: 'array', items: { type: 'object' } };
  const check = reportSchema<AuthorizationDetails>('iam', {
    type: 'object',
    anyOf: [
      { required: ['UserDetailList'] },
      { required: ['RoleDetailList'] },
      { required: ['GroupDetailList'] },
    ],
    properties: { UserDetailList: list, GroupDetailList: list, RoleDetailList: list, Policies: list },
  });
  return {
    name: 'iam',
    version: '2',
    description:
      'IAM authorization details: users, roles, trust (ASSUMES), escalation primitives read by the policy evaluator (CAN_ESCALATE_TO).',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      const queryAccount = accountParameter(query);
      const doc = check(body);
      const out = new EnvelopeBuilder('iam', 'asset', receivedAt);
      const accountOf = (arn: unknown) =>
        queryAccount ?? (typeof arn === 'string' ? (parseIamArn(arn)?.account ?? '') : '');
      // Time conditions are judged at the report's arrival (the injected clock); the edges they decide say
      // until when (`valid_until`), and the writer retracts them then (src/graph/truth-expiry.ts).
      const now = Date.parse(receivedAt);
      const directory = readDirectory(doc, accountOf, {
        now: Number.isNaN(now) ? Date.now() : now,
        inventory: options.inventory?.(doc),
      });
      const account = (p: Principal) => p.account || undefined;

      const ids = new Map<Principal, string>();
      for (const user of directory.users) {
        ids.set(
          user,
          out.node('User', qualify(user.name, account(user)), {
            arn: user.arn || undefined,
            account: account(user),
            iam_user: true,
            groups: user.groups.length ? user.groups : undefined,
            permissions_boundary: user.boundaryArn,
            ...(options.seedIamUsers && {
              credential_exposed: true,
              credential_exposure_basis: 'lens:SEED_IAM_USERS',
            }),
          }),
        );
      }
      const roleDetails = new Map((doc.RoleDetailList ?? []).map((r) => [String(r.Arn ?? r.RoleName), r]));
      for (const role of directory.roles) {
        const detail = roleDetails.get(role.arn || role.name) ?? {};
        const managedArns = (detail.AttachedManagedPolicies ?? []).map(
          (a: { PolicyArn: string }) => a.PolicyArn,
        );
        const profiles = role.instanceProfiles.map((p) => instanceProfileAlias(p.name, account(role)));
        ids.set(
          role,
          out.node('IAM_Role', qualify(role.name, account(role)), {
            arn: role.arn || undefined,
            account: account(role),
            managed_policies: managedArns.length ? managedArns : undefined,
            trusted_services: role.services.size ? [...role.services].sort() : undefined,
            instance_profiles: role.instanceProfiles.length
              ? role.instanceProfiles.map((p) => p.name)
              : undefined,
            aliases: profiles.length ? profiles : undefined,
            permissions_boundary: role.boundaryArn,
            ...roleTrustExposure(detail.AssumeRolePolicyDocument),
            ...crownJewel({
              label: 'IAM_Role',
              name: role.name,
              tags: readTags(detail.Tags),
              managedPolicies: managedArns,
            }),
          }),
        );
      }

      // Trust: who may assume each role.
      const mentioned: string[] = [];
      for (const role of directory.roles) {
        const roleId = ids.get(role)!;
        const trust = readTrust(role, directory);
        for (const { from, via, conditional, until } of trust.assumedBy)
          out.edge('ASSUMES', ids.get(from)!, roleId, {
            properties: {
              via,
              conditional: conditional || undefined,
              valid_until: until === undefined ? undefined : new Date(until).toISOString(),
            },
          });
        for (const repository of trust.repositories) {
          const repo = out.node('Repository', repository, {});
          mentioned.push(repo);
          out.edge('ASSUMES', repo, roleId, { properties: { via: 'oidc:github-actions' } });
        }
        if (trust.anyRepository)
          out.stamp(roleId, {
            internet_exposed: true,
            exposure_basis: 'trust:oidc:token.actions.githubusercontent.com:any-repository',
          });
        for (const provider of trust.samlProviders) {
          const idp = out.node('IdentityProvider', provider, { saml_provider: true });
          mentioned.push(idp);
          out.edge('ASSUMES', idp, roleId, { properties: { via: 'saml' } });
        }
      }

      // Escalation: to the account's administrator, or to the principal taken over.
      for (const escalation of findEscalations(directory)) {
        const from = ids.get(escalation.from)!;
        let to: string;
        if (escalation.target === 'admin') {
          const acct = account(escalation.from);
          to = out.node('IAM_Role', qualify(ACCOUNT_ADMIN, acct), {
            synthetic: true,
            crown_jewel: true,
            crown_jewel_basis: 'synthetic:account-admin',
            account: acct,
          });
          mentioned.push(to);
        } else to = ids.get(escalation.target)!;
        if (to === from) continue;
        out.edge('CAN_ESCALATE_TO', from, to, {
          exploit_probability: escalation.admin
            ? ADMIN_HELD_PROBABILITY
            : escalationPrice(escalation.strength),
          weight_basis: 'heuristic',
          ...(escalation.strength === 'scoped' && { resource_scoped: true }),
          properties: {
            primitives: escalation.primitives,
            conditional: escalation.strength === 'conditional' || undefined,
            reasons: escalation.reasons,
            valid_until:
              escalation.until === undefined ? undefined : new Date(escalation.until).toISOString(),
          },
        });
      }
      return { envelopes: [out.build()], warnings: [], mentioned: [...new Set(mentioned)] };
    },
  };
}
