import { chmod, copyFile, cp, mkdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import dockerignore from '@balena/dockerignore';
import { Copy, DockerfileParser, Env, JSONInstruction, type Instruction } from 'dockerfile-ast';
import type { NodeServiceOptions } from '#local/process/node-service.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { runLogged } from '#local/process/run-logged.ts';
import { startServerProcess, type ServerProcess } from '#local/process/server-process.ts';
import { copyProjectFiles, projectFiles } from './project-files.ts';

/** What the final stage of the Dockerfile leaves: its files and how a container starts. */
export interface AssembledImage {
  /** The image's file system root, on this machine. */
  root: string;
  /** The base image the final stage starts FROM. */
  base: string;
  /** WORKDIR, inside the image. */
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  cmd: string[];
}

interface Stage extends AssembledImage {
  name: string | null;
}

/**
 * The image as `docker build` would assemble it, in `dir`, without a container engine: the build
 * context is the clone's files filtered by `.dockerignore` (with Docker's own matcher), and each
 * instruction of the Dockerfile is carried out on a folder per stage (RUN as a shell command in
 * that stage's WORKDIR). Only the base images are missing: the stages start empty, and the final
 * one gets this project's pinned Node where the `node` images keep theirs. An instruction this
 * cannot carry out is an error, so a Dockerfile change is followed or refused, never skipped.
 */
export async function assembleImage(dir: string, logFile: string): Promise<AssembledImage> {
  // The image's user must reach the stages, as every user can in an image.
  await chmod(dir, 0o755);
  const context = await buildContext(join(dir, 'context'));
  const dockerfile = DockerfileParser.parse(
    await readFile(join(projectRoot, 'Dockerfile'), 'utf8'),
  );
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    const args = instruction.getExpandedArguments().map((argument) => argument.getValue());
    if (keyword === 'ARG') continue;
    if (keyword === 'FROM') {
      stages.push(await startStage(join(dir, `stage-${String(stages.length)}`), args));
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) throw unsupported(instruction, 'before the first FROM');
    switch (keyword) {
      case 'WORKDIR':
        stage.workdir = posix.resolve(stage.workdir, args[0] ?? '/');
        await mkdir(join(stage.root, stage.workdir), { recursive: true });
        break;
      case 'COPY':
        if (!(instruction instanceof Copy)) throw unsupported(instruction, 'an unknown form');
        await copyInto(stage, instruction, args, (from) => {
          if (from === null) return context;
          const source = stages.find((earlier) => earlier.name === from);
          if (source === undefined) throw unsupported(instruction, `no earlier stage ${from}`);
          return source.root;
        });
        break;
      case 'RUN':
        await runIn(stage, instruction, logFile);
        break;
      case 'ENV':
        if (!(instruction instanceof Env)) throw unsupported(instruction, 'an unknown form');
        for (const property of instruction.getProperties()) {
          stage.env[property.getName()] = property.getValue() ?? '';
        }
        break;
      case 'USER':
        stage.user = args[0];
        break;
      case 'EXPOSE':
        // Documentation for whoever runs the image; nothing to carry out.
        break;
      case 'CMD':
        stage.cmd = jsonForm(instruction);
        break;
      default:
        throw unsupported(
          instruction,
          'not carried out here: teach test/support/checks/image-rehearsal.ts',
        );
    }
  }
  const image = stages.at(-1);
  if (image === undefined) throw new Error('The Dockerfile has no FROM');
  const node = join(image.root, 'usr', 'local', 'bin', 'node');
  await mkdir(dirname(node), { recursive: true });
  await copyFile(process.execPath, node);
  return image;
}

/** The clone's files (tracked, or new and not git-ignored) that `.dockerignore` lets through. */
async function buildContext(context: string): Promise<string> {
  // Its types declare an ES default export over CommonJS; the factory is both.
  const rules = dockerignore
    .default()
    .add(await readFile(join(projectRoot, '.dockerignore'), 'utf8'));
  await copyProjectFiles(rules.filter(projectFiles()), context);
  return context;
}

async function startStage(root: string, [base = '', as, name]: string[]): Promise<Stage> {
  await mkdir(root, { recursive: true });
  return {
    name: as?.toUpperCase() === 'AS' ? (name ?? null) : null,
    root,
    base,
    workdir: '/',
    env: {},
    user: undefined,
    cmd: [],
  };
}

/** COPY [--from=<stage>] <source>… <destination>, as Docker copies: a folder's contents, not itself. */
async function copyInto(
  stage: Stage,
  instruction: Copy,
  args: string[],
  sourceRoot: (from: string | null) => string,
): Promise<void> {
  const unknownFlags = instruction.getFlags().filter((flag) => flag.getName() !== 'from');
  if (unknownFlags.length > 0) throw unsupported(instruction, 'flags other than --from');
  const from = sourceRoot(instruction.getFromFlag()?.getValue() ?? null);
  const sources = args.slice(0, -1);
  const destination = args.at(-1) ?? '';
  if (sources.some((source) => /[*?[]/.test(source))) throw unsupported(instruction, 'wildcards');
  const target = join(stage.root, posix.resolve(stage.workdir, destination));
  const intoFolder = destination.endsWith('/') || sources.length > 1;
  for (const source of sources) {
    const path = join(from, source);
    const isFolder = (await stat(path)).isDirectory();
    const to = intoFolder && !isFolder ? join(target, basename(source)) : target;
    await mkdir(isFolder ? to : dirname(to), { recursive: true });
    await cp(path, to, { recursive: true, verbatimSymlinks: true });
  }
}

/**
 * RUN in its shell form, with this machine's environment (its proxy and CA settings: the build's
 * network) under the stage's, less the `npm_*` variables `npm test` set for itself, which a
 * nested npm would take as its own configuration.
 */
async function runIn(stage: Stage, instruction: Instruction, logFile: string): Promise<void> {
  const script = instruction.getArgumentsContent();
  if (script === null || script.startsWith('[')) throw unsupported(instruction, 'the exec form');
  await runLogged('/bin/sh', ['-c', script], {
    cwd: join(stage.root, stage.workdir),
    logFile,
    env: {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
      ),
      ...stage.env,
    },
  });
}

function jsonForm(instruction: Instruction): string[] {
  if (!(instruction instanceof JSONInstruction) || instruction.getJSONStrings().length === 0) {
    throw unsupported(instruction, 'the shell form');
  }
  return instruction.getJSONStrings().map((argument) => argument.getJSONValue());
}

function unsupported(instruction: Instruction, what: string): Error {
  const line = String(instruction.getRange().start.line + 1);
  return new Error(`Dockerfile:${line}: ${instruction.getKeyword()} with ${what}`);
}

/**
 * Starts `argv` in the image as a container would: in its WORKDIR, with only its environment
 * (plus `env`), `node` found on its PATH, and, when this runs as root, as the image's USER, who
 * cannot write the files COPY left owned by root.
 */
export function startInImage(
  image: AssembledImage,
  argv: readonly string[],
  options: Omit<NodeServiceOptions, 'script'>,
): ServerProcess {
  const [uid, gid] = (image.user ?? '').split(':');
  const asImageUser =
    process.getuid?.() === 0
      ? ['setpriv', `--reuid=${uid ?? ''}`, `--regid=${gid ?? uid ?? ''}`, '--clear-groups']
      : [];
  const [command = '', ...args] = [...asImageUser, ...argv];
  return startServerProcess({
    name: options.name,
    command,
    args,
    cwd: join(image.root, image.workdir),
    env: {
      ...image.env,
      PATH: `${join(image.root, 'usr', 'local', 'bin')}:/usr/bin:/bin`,
      ...options.env,
    },
    logFile: join(options.logDir, `${options.name}.log`),
    stopTimeoutMs: 30_000,
  });
}
