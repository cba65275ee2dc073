import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'libs/db/src/generated/**',
      '.warden/**',
      '.infra/**',
      'clients/python/**',
      'scripts/fuzz/.venv/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // CommonJS configuration files of tools (e.g. .dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Services reach PostgreSQL only through libs/db's named functions (docs/decisions.md "Every
    // statement lives in libs/db"): no Prisma model call, raw SQL or transaction in a service.
    files: ['services/*/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.type='MemberExpression'][callee.object.type='MemberExpression'][callee.object.object.name=/^(db|tx|prisma)$/][callee.property.name=/^(findFirst|findFirstOrThrow|findUnique|findUniqueOrThrow|findMany|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|groupBy|aggregate)$/]",
          message: 'A service does not query PostgreSQL itself: add a named function to libs/db and call it.',
        },
        {
          selector:
            'MemberExpression[property.name=/^\\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)$/]',
          message:
            'A service does not run SQL or transactions itself: add a named function to libs/db and call it.',
        },
      ],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
);
