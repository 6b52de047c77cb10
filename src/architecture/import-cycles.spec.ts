import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../../test/support/source-files';

/**
 * No file of src/ requires, through the files it requires, itself. In a cycle one file runs
 * before another it needs has finished, and what it reads of it is undefined: a decorator's
 * parameter type (Nest then cannot inject it), a constant, a base class. The graph is the
 * compiler's own output, file by file, so imports used only as types (which it drops) do not
 * count. TypeORM entities may name each other: their relations read the other class through a
 * function, after every file has loaded.
 */
const SRC = resolve(__dirname, '..');

/**
 * The src/ files that `file`'s emitted JavaScript requires as it loads: the requires at the top
 * of the file. One inside a function runs when the function is called, after loading.
 */
function requiredBy(file: string, known: ReadonlySet<string>): string[] {
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
    },
  });
  return [...outputText.matchAll(/^(?:(?:const|var) [\w$]+ = .*)?require\("(\.[^"]+)"\)/gm)]
    .map(([, path]) => resolve(dirname(file), path))
    .flatMap((path) => [`${path}.ts`, join(path, 'index.ts')].filter((f) => known.has(f)));
}

/** Every cycle's files, each cycle once (Tarjan's strongly connected components). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import cycles', () => {
  it('none in src/, but between TypeORM entities', () => {
    const files = sourceFiles(SRC, false);
    const known = new Set(files);
    const graph = new Map(files.map((file) => [file, requiredBy(file, known)]));
    const name = (file: string) => relative(SRC, file).split(sep).join('/');
    const offending = cycles(graph)
      .filter((cycle) => !cycle.every((file) => file.endsWith('.entity.ts')))
      .map((cycle) => cycle.map(name).sort());
    expect(offending).toEqual([]);
  });
});
