// `npm start`: the service on the embedded default, with the demo estate unless DEMO_DATA=false.
import { runServer } from './run-server.js';
import { VERSION } from './version.js';

runServer({ demoByDefault: true, version: VERSION }).catch((error: unknown) => {
  process.stderr.write(`pathgate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
