/**
 * The `-o, --out <dir>` value of the commands that write (Node only, commander). A value that starts with
 * `-` is an option the user meant (`-o -q` made a folder called `-q`): refused as a usage error; a folder
 * really named so is written `./-q`. An empty value is refused too.
 */
import { InvalidArgumentError } from 'commander';

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
