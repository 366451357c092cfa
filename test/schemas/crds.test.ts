// The CRDs in crds/ are generated from the JSON Schemas (src/schemas/resource-schemas.ts): the
// committed files must be exactly the generator's output, and the schemas must be structural.
// (The kube backend tests prove the API server accepts them and validates with them.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CRD_CATEGORY, CRD_KINDS, customResourceDefinition, renderCrdFiles, toStructural, type StructuralSchema } from '../../src/schemas/crds.js';
import { resourceProblems, resourceSchemas } from '../../src/schemas/resource-schemas.js';
import { repoRoot } from '../support/controlplane.js';

/** Paths of schema nodes that break the API server's structural-schema rules. */
function structuralProblems(schema: StructuralSchema, path: string): string[] {
  const problems: string[] = [];
  const preserves = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (!schema.type && !preserves) problems.push(`${path} has no type`);
  if ('additionalProperties' in schema) problems.push(`${path} has additionalProperties`);
  // metadata is the one exception: the API server validates ObjectMeta itself.
  if (schema.type === 'object' && !schema.properties && !preserves && !/^\w+\.metadata$/.test(path)) problems.push(`${path} is an object without properties that drops every field`);
  if (schema.type === 'array' && !schema.items) problems.push(`${path} is an array without items`);
  for (const [name, property] of Object.entries(schema.properties ?? {})) problems.push(...structuralProblems(property, `${path}.${name}`));
  if (schema.items) problems.push(...structuralProblems(schema.items, `${path}[]`));
  for (const name of schema.required ?? []) if (!schema.properties?.[name]) problems.push(`${path} requires ${name}, which it does not define`);
  return problems;
}

/** Every node that keeps unknown fields, by path. */
function freeFormPaths(schema: StructuralSchema, path: string): string[] {
  const own = schema['x-kubernetes-preserve-unknown-fields'] ? [path] : [];
  const nested = Object.entries(schema.properties ?? {}).flatMap(([name, property]) => freeFormPaths(property, `${path}.${name}`));
  return [...own, ...nested, ...(schema.items ? freeFormPaths(schema.items, `${path}[]`) : [])];
}

describe('CustomResourceDefinitions', function () {
  const crdDir = join(repoRoot(), 'crds');

  it('crds/ holds exactly what scripts/generate-crds.ts writes (run `make crds` after changing the schemas)', function () {
    const rendered = renderCrdFiles();
    const committed = readdirSync(crdDir).filter((name) => name.endsWith('.browserfn.dev.yaml'));
    assert.deepEqual(committed.sort(), [...rendered.keys()].sort());
    for (const [name, content] of rendered) assert.equal(readFileSync(join(crdDir, name), 'utf8'), content, `crds/${name} is stale: run \`make crds\``);
  });

  it('defines Function, Build, Invocation and BrowserPool in browserfn.dev/v1alpha1 with status subresource, short names, category and printer columns', function () {
    const shortNames: string[] = [];
    for (const kind of CRD_KINDS) {
      const crd = parse(readFileSync(join(crdDir, `${customResourceDefinition(kind).metadata.name}.yaml`), 'utf8')) as ReturnType<typeof customResourceDefinition>;
      assert.equal(crd.spec.group, 'browserfn.dev');
      assert.equal(crd.spec.names.kind, kind);
      assert.deepEqual(crd.spec.names.categories, [CRD_CATEGORY]);
      shortNames.push(...crd.spec.names.shortNames);
      const [version] = crd.spec.versions;
      assert.equal(version.name, 'v1alpha1');
      assert.deepEqual(version.subresources, { status: {} });
      const columns = version.additionalPrinterColumns.map((c) => c.jsonPath);
      assert.ok(columns.includes('.metadata.creationTimestamp'), `${kind} shows its age`);
      if (kind === 'Build' || kind === 'Invocation') assert.ok(columns.includes('.status.phase'), `${kind} shows its phase`);
      if (kind === 'BrowserPool') assert.deepEqual(columns.slice(0, 5), ['.spec.minIdle', '.spec.maxIdle', '.status.desired', '.status.ready', '.status.claimed'], 'BrowserPool shows its sizes and members');
      if (kind === 'Invocation') assert.ok(columns.includes('.spec.functionName'), 'Invocation shows its function');
      if (kind === 'Function') assert.ok(columns.includes('.spec.name'), 'Function shows its name');
    }
    assert.deepEqual(shortNames.sort(), ['bfn', 'bfnbuild', 'bfninv', 'bfnpool']);
  });

  it('has structural schemas with a description on every field, keeping unknown fields only where JSON is free-form', function () {
    for (const kind of CRD_KINDS) {
      const schema = customResourceDefinition(kind).spec.versions[0].schema.openAPIV3Schema;
      assert.deepEqual(structuralProblems(schema, kind), []);
      const undocumented: string[] = [];
      const visit = (node: StructuralSchema, path: string): void => {
        if (!node.description && !/\.(apiVersion|kind|metadata)$/.test(path) && !path.endsWith('[]')) undocumented.push(path);
        for (const [name, property] of Object.entries(node.properties ?? {})) visit(property, `${path}.${name}`);
        if (node.items) visit(node.items, `${path}[]`);
      };
      visit(schema.properties!.spec, `${kind}.spec`);
      assert.deepEqual(undocumented, [], `fields without a description (kubectl explain shows nothing for them)`);
    }
    assert.deepEqual(freeFormPaths(customResourceDefinition('Function').spec.versions[0].schema.openAPIV3Schema, 'Function'), [
      'Function.spec.version.sessionConfig',
      'Function.spec.version.parametersSchema',
    ]);
    assert.deepEqual(freeFormPaths(customResourceDefinition('Invocation').spec.versions[0].schema.openAPIV3Schema, 'Invocation'), [
      'Invocation.spec.params',
      'Invocation.spec.sessionConfig',
      'Invocation.status.results',
    ]);
    assert.deepEqual(freeFormPaths(customResourceDefinition('Build').spec.versions[0].schema.openAPIV3Schema, 'Build'), []);
  });

  it('carries the JSON Schemas\' validation rules over unchanged', function () {
    const timeout = toStructural(resourceSchemas.Invocation.spec).properties!.timeoutSeconds;
    assert.deepEqual({ type: timeout.type, minimum: timeout.minimum, maximum: timeout.maximum }, { type: 'integer', minimum: 60, maximum: 900 });
    const phase = toStructural(resourceSchemas.Build.status).properties!.phase;
    assert.deepEqual(phase.enum, ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED']);
    assert.deepEqual(toStructural(resourceSchemas.Build.spec).required, ['entrypoint', 'archiveConfigMap']);
    assert.equal(
      resourceProblems('Invocation', { spec: { functionName: 'f' } }),
      'spec.functionUid is required; spec.versionId is required; spec.bundleConfigMap is required; spec.params is required; spec.sessionConfig is required; spec.timeoutSeconds is required; spec.sessionId is required',
    );
    assert.equal(resourceProblems('Function', { spec: { name: ' padded' } }), 'spec.name must match pattern "' + resourceSchemas.Function.spec.properties!.name.pattern + '"');
    assert.equal(resourceProblems('Function', { spec: { name: 'fine name' }, status: { currentVersion: 2 } }), undefined);
  });
});
