/**
 * Option parsers shared by the `kind` commands (Node only, commander): numbers in a range, and the output
 * paths of the commands that write. An output value that starts with `-` is an option the user meant
 * (`-o -q` made a folder called `-q`): refused as a usage error; a folder really named so is written
 * `./-q`. An empty value is refused too.
 */
import { InvalidArgumentError } from 'commander';

/**
 * A commander parser for a number option: '<name>: 'abc' is not a number' for text, and
 * '<name>: 0 is out of range (<what>)' for a number that fails `check`.
 */
export function numberArg(name: string, what: string, check: (v: number) => boolean) {
  return (value: string): number => {
    const v = Number(value);
    if (value.trim() === '' || !Number.isFinite(v))
      throw new InvalidArgumentError(`${name}: '${value}' is not a number`);
    if (!check(v)) throw new InvalidArgumentError(`${name}: ${value} is out of range (${what})`);
    return v;
  };
}

/** The same check for an output file option (`--json <file>`), named in the message. */
export function outFileArg(name: string) {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`${name}: empty path; name an output file`);
    if (value.startsWith('-'))
      throw new InvalidArgumentError(
        `${name}: '${value}' looks like an option, not a file (write ./${value} for a file of that name)`,
      );
    return value;
  };
}

export function outDirArg(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('--out: empty path; name an output folder');
  if (value.startsWith('-'))
    throw new InvalidArgumentError(
      `--out: '${value}' looks like an option, not a folder (write ./${value} for a folder of that name)`,
    );
  return value;
}
