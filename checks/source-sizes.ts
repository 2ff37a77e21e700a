import ts from 'typescript'

/**
 * Sizes a reader can hold (issue 31): lines of a source file, and lines of each function in it
 * (declaration, expression, arrow, method, constructor, accessor), from its first token to its
 * last, so the comment above it does not count. Measured with the TypeScript compiler, which
 * parses .ts and .tsx alike; not with Biome's rules for the same, whose exceptions are per file
 * and never go stale (docs/architecture.md, "Layers the build checks").
 */

export type Limits = { fileLines: number; functionLines: number }

/** Sizes over the limits that were there when the check began: each may shrink, never grow. */
export type AllowList = {
  files: Readonly<Record<string, number>>
  /** Keyed `<path> <function name>` (see functionName). */
  functions: Readonly<Record<string, number>>
}

export type FunctionSize = { name: string; line: number; lines: number }

export type SourceSizes = { path: string; lines: number; functions: FunctionSize[] }

/** What fails the check: over a limit and not allowed, grown past its allowance, or stale. */
export type Finding =
  | { kind: 'file-too-long'; path: string; lines: number; limit: number }
  | { kind: 'function-too-long'; key: string; line: number; lines: number; limit: number }
  | { kind: 'grown'; key: string; lines: number; allowed: number }
  | { kind: 'stale'; key: string; allowed: number; lines: number | undefined }

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export const countLines = (text: string): number => {
  if (text === '') return 0
  const breaks = text.split('\n').length - 1
  return text.endsWith('\n') ? breaks : breaks + 1
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node)

const nameOf = (node: ts.Node): string | undefined => {
  const named = node as { name?: ts.Node }
  if (named.name !== undefined && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name))) {
    return named.name.text
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  return undefined
}

/**
 * A function's name: its own, or that of the variable, property or parameter it is assigned to,
 * prefixed by the names of the functions and classes around it (`makeGrantLife/cancel`,
 * `DynamoDbWebhookStore/list`). An unnamed callback is `<anonymous>`, numbered among its
 * siblings in order, so the name survives edits elsewhere in the file.
 */
const ownName = (node: ts.Node): string | undefined => {
  const own = nameOf(node)
  if (own !== undefined) return own
  const parent = node.parent
  if (
    parent !== undefined &&
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent))
  ) {
    return nameOf(parent)
  }
  return undefined
}

/** Every function of one source and its length in lines. */
export const measureSource = (path: string, text: string): SourceSizes => {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind)
  const functions: FunctionSize[] = []
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1
  const visit = (node: ts.Node, scope: string, anonymous: { count: number }) => {
    if (isFunction(node)) {
      const own = ownName(node) ?? `<anonymous ${++anonymous.count}>`
      const name = scope === '' ? own : `${scope}/${own}`
      const line = lineOf(node.getStart(source))
      functions.push({ name, line, lines: lineOf(node.getEnd()) - line + 1 })
      const inner = { count: 0 }
      ts.forEachChild(node, (child) => visit(child, name, inner))
      return
    }
    if (ts.isClassLike(node)) {
      const name = nameOf(node) ?? '<class>'
      const inner = { count: 0 }
      ts.forEachChild(node, (child) =>
        visit(child, scope === '' ? name : `${scope}/${name}`, inner),
      )
      return
    }
    ts.forEachChild(node, (child) => visit(child, scope, anonymous))
  }
  visit(source, '', { count: 0 })
  return { path, lines: countLines(text), functions }
}

/** The allow-list key of a function. */
export const functionKey = (path: string, name: string) => `${path} ${name}`

/**
 * What breaks the limits in `sources`. An allowance covers one file or function up to its
 * recorded size; one that no longer applies (the file or function is gone, or within the limit
 * now) is stale, so the allow-list always lists exactly what is left to split.
 */
export const checkSizes = (
  sources: readonly SourceSizes[],
  limits: Limits,
  allowed: AllowList,
): Finding[] => {
  const findings: Finding[] = []
  const fileSizes = new Map<string, number>()
  const functionSizes = new Map<string, number>()
  const judge = (
    key: string,
    lines: number,
    limit: number,
    allowance: number | undefined,
    tooLong: () => Finding,
  ) => {
    if (lines <= limit) return
    if (allowance === undefined) findings.push(tooLong())
    else if (lines > allowance) findings.push({ kind: 'grown', key, lines, allowed: allowance })
  }
  for (const source of sources) {
    fileSizes.set(source.path, source.lines)
    judge(source.path, source.lines, limits.fileLines, allowed.files[source.path], () => ({
      kind: 'file-too-long',
      path: source.path,
      lines: source.lines,
      limit: limits.fileLines,
    }))
    for (const fn of source.functions) {
      const key = functionKey(source.path, fn.name)
      // Two functions with one name (overloads' bodies, same-named callbacks): the longer counts.
      functionSizes.set(key, Math.max(fn.lines, functionSizes.get(key) ?? 0))
      judge(key, fn.lines, limits.functionLines, allowed.functions[key], () => ({
        kind: 'function-too-long',
        key,
        line: fn.line,
        lines: fn.lines,
        limit: limits.functionLines,
      }))
    }
  }
  const stale = (
    entries: Readonly<Record<string, number>>,
    sizes: Map<string, number>,
    limit: number,
  ) => {
    for (const [key, allowance] of Object.entries(entries)) {
      const lines = sizes.get(key)
      if (lines === undefined || lines <= limit) {
        findings.push({ kind: 'stale', key, allowed: allowance, lines })
      }
    }
  }
  stale(allowed.files, fileSizes, limits.fileLines)
  stale(allowed.functions, functionSizes, limits.functionLines)
  return findings
}

/** One line per finding, saying what to do about it. */
export const describeFinding = (finding: Finding): string => {
  switch (finding.kind) {
    case 'file-too-long':
      return `${finding.path}: ${finding.lines} lines, over the limit of ${finding.limit}: split it by role`
    case 'function-too-long':
      return `${finding.key} (line ${finding.line}): ${finding.lines} lines, over the limit of ${finding.limit}: split it into named steps`
    case 'grown':
      return `${finding.key}: ${finding.lines} lines, grown past its allowance of ${finding.allowed}: shrink it, never raise the allowance`
    case 'stale':
      return `${finding.key}: allowed ${finding.allowed} lines, now ${finding.lines === undefined ? 'gone' : `${finding.lines}, within the limit`}: remove it from the allow-list`
  }
}
