// The `pathgate` command line: the process around the command table (app/cli-commands.ts).
import { runCli } from './cli-commands.js';

/** process.exit drops what a pipe has not taken yet (`pathgate gate -json | jq`): exit once both are flushed. */
function exitWhenFlushed(code: number): void {
  let open = 2;
  const flushed = () => {
    if (--open === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
}).then((code) => {
  if (code >= 0) exitWhenFlushed(code);
});
