// The two XML dialects of AWS's query protocols, written from plain objects in the SDK's (PascalCase) shapes:
// EC2's (`ec2Query`: lowerCamel element names, lists as `<xSet><item>`) and everyone else's (`awsQuery`:
// member names as they are, lists as `<X><member>`, a `<XResponse><XResult>` wrapper), with the error
// bodies each sends. Reference: "Query API request" and "Error codes" in the Amazon EC2 API Reference
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/Query-Requests.html,
// https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html), and the Query API pages of
// IAM, STS, RDS and ELBv2 (e.g. https://docs.aws.amazon.com/IAM/latest/APIReference/iam-api.pdf "Making
// Query Requests", https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html).

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function scalar(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return escapeXml(String(value));
}

/** EC2 element names that are not the member name with its first letter lowered (the EC2 API Reference). */
const EC2_NAMES: Readonly<Record<string, string>> = {
  Instances: 'instancesSet',
  Tags: 'tagSet',
  PublicIpAddress: 'ipAddress',
  UserIdGroupPairs: 'groups',
  Routes: 'routeSet',
  Associations: 'associationSet',
  Entries: 'entrySet',
  CidrBlockSet: 'cidrBlockSet',
};
/** Names that depend on the list the member sits in. */
const EC2_NAMES_IN: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Instances: { State: 'instanceState', SecurityGroups: 'groupSet' },
  SecurityGroups: { Description: 'groupDescription' },
  NetworkAcls: { IsDefault: 'default' },
};

function ec2Name(key: string, parent: string): string {
  return EC2_NAMES_IN[parent]?.[key] ?? EC2_NAMES[key] ?? key[0].toLowerCase() + key.slice(1);
}

/** An object's members as EC2 elements; `parent` is the list the object is an item of. */
export function ec2Members(value: Record<string, unknown>, parent = ''): string {
  let out = '';
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || member === null) continue;
    const name = ec2Name(key, parent);
    if (Array.isArray(member)) out += `<${name}>${ec2Items(member, key)}</${name}>`;
    else if (typeof member === 'object' && !(member instanceof Date))
      out += `<${name}>${ec2Members(member as Record<string, unknown>, key)}</${name}>`;
    else out += `<${name}>${scalar(member)}</${name}>`;
  }
  return out;
}

export function ec2Items(list: unknown[], key: string): string {
  return list
    .map((item) =>
      item && typeof item === 'object'
        ? `<item>${ec2Members(item as Record<string, unknown>, key)}</item>`
        : `<item>${scalar(item)}</item>`,
    )
    .join('');
}

/** `<DescribeXResponse>` with its request id, the list under `listName`, and `nextToken` when more follow. */
export function ec2Response(action: string, listName: string, key: string, items: unknown[], next?: string) {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">` +
    `<requestId>${requestId()}</requestId><${listName}>${ec2Items(items, key)}</${listName}>` +
    (next ? `<nextToken>${escapeXml(next)}</nextToken>` : '') +
    `</${action}Response>`
  );
}

/** EC2's error body (`<Response><Errors><Error>`). */
export function ec2Error(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${requestId()}</RequestID></Response>`;
}

/** awsQuery members; `memberNames` names a list's items where the service does not call them `member`. */
export function queryMembers(
  value: Record<string, unknown>,
  memberNames: Record<string, string> = {},
): string {
  let out = '';
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || member === null) continue;
    if (Array.isArray(member)) {
      const item = memberNames[key] ?? 'member';
      out += `<${key}>${member
        .map((m) =>
          m && typeof m === 'object' && !(m instanceof Date)
            ? `<${item}>${queryMembers(m as Record<string, unknown>, memberNames)}</${item}>`
            : `<${item}>${scalar(m)}</${item}>`,
        )
        .join('')}</${key}>`;
    } else if (typeof member === 'object' && !(member instanceof Date))
      out += `<${key}>${queryMembers(member as Record<string, unknown>, memberNames)}</${key}>`;
    else out += `<${key}>${scalar(member)}</${key}>`;
  }
  return out;
}

export function queryResponse(
  action: string,
  namespace: string,
  result: Record<string, unknown>,
  memberNames?: Record<string, string>,
): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${namespace}"><${action}Result>` +
    `${queryMembers(result, memberNames)}</${action}Result><ResponseMetadata><RequestId>${requestId()}</RequestId>` +
    `</ResponseMetadata></${action}Response>`
  );
}

/** awsQuery's error body (`<ErrorResponse><Error>`). */
export function queryError(code: string, message: string, type: 'Sender' | 'Receiver' = 'Sender'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse><Error><Type>${type}</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId()}</RequestId></ErrorResponse>`;
}

let sequence = 0;
export function requestId(): string {
  sequence += 1;
  return `0000${sequence.toString(16)}`.slice(-8) + '-5f3a-4b1c-9d2e-7a6b5c4d3e2f';
}
