// Points the AWS SDK at a stand-in for the length of a test file: AWS_ENDPOINT_URL (the SDK's own
// setting), no instance metadata probing, no shared config files, no Node-version notice; the previous
// values restored after.
const KEYS = [
  'AWS_ENDPOINT_URL',
  'AWS_EC2_METADATA_DISABLED',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
];

export function pointSdkAt(url: string): () => void {
  const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  process.env.AWS_ENDPOINT_URL = url;
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  process.env.AWS_CONFIG_FILE = '/nonexistent/pathgate-test-aws-config';
  process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/pathgate-test-aws-credentials';
  // The SDK's notice that its releases after January 2027 need Node 22 (docs/connectors.md), once per process.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
