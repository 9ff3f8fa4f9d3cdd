import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspace } from '../../test/helpers/cli.js';
import { schemaReference } from './schema-reference.js';

const listing = JSON.stringify({ name: 'ads', devDependencies: { audiences: 'file:vendor/audiences-0.2.0.tgz' } });

describe('schemaReference', () => {
  it("is the schema itself in the tool's own repository", async () => {
    const tool = await workspace({
      '.git/HEAD': '',
      'package.json': JSON.stringify({ name: 'audiences' }),
      'schemas/audiences.schema.json': '{}',
      'examples/x': '',
    });
    const schema = join(tool, 'schemas/audiences.schema.json');
    expect(await schemaReference(tool, schema)).toBe('schemas/audiences.schema.json');
    expect(await schemaReference(join(tool, 'examples'), schema)).toBe('../schemas/audiences.schema.json');
  });

  it("is found through a monorepo's package.json that lists the tool, but never past the project's .git", async () => {
    const root = await workspace({
      'package.json': listing,
      'repo/.git/HEAD': '',
      'repo/package.json': listing,
      'repo/shop/package.json': '{"name": "shop"}',
      'repo/shop/broken/package.json': '{',
    });
    const elsewhere = '/opt/audiences/schemas/audiences.schema.json';
    expect(await schemaReference(join(root, 'repo/shop/broken'), elsewhere)).toBe(
      '../../node_modules/audiences/schemas/audiences.schema.json',
    );
    const outside = await workspace({
      'package.json': listing,
      'repo/.git': 'gitdir: /elsewhere\n',
      'repo/package.json': '{"name": "shop"}',
    });
    expect(await schemaReference(join(outside, 'repo'), elsewhere)).toBeUndefined();
  });
});
