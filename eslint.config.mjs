import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

const eslintConfig = defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // A leading underscore marks a value left out on purpose (e.g. a field dropped by destructuring).
      "@typescript-eslint/no-unused-vars": [
        "warn",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // What runs in the browser never imports the server: shared values live in src/lib. Types
    // (AppRouter, ErrorData) are erased at build time and stay allowed. Server components and
    // server actions under src/app/console (pages, layouts, actions) call the server and are exempt,
    // as are tests, which drive the server on purpose. (The API reference, rendered on the server
    // only into a static page, keeps its components beside its page, under src/app/api/docs.)
    files: ["src/components/**/*.{ts,tsx}", "src/app/console/**/*.{ts,tsx}", "src/trpc/**/*.{ts,tsx}"],
    ignores: [
      "**/*.test.ts",
      "src/app/console/**/page.tsx",
      "src/app/console/**/layout.tsx",
      "src/app/console/actions.ts",
      "src/app/console/**/org-page.ts",
      "src/trpc/server.tsx",
    ],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(@/server|(\\.\\./)+server)(/|$)",
              allowTypeImports: true,
              message:
                "Browser code does not import the server at run time: move the shared value to src/lib (type-only imports are fine).",
            },
          ],
        },
      ],
    },
  },
  {
    // No import cycles: a cycle hides which module needs which, and one was broken only by a dynamic
    // import before. Type-only imports are erased and do not count.
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/generated/**"],
    // Packages are not read for cycles (they cannot import our modules): it keeps the rule fast.
    settings: { "import/ignore": ["node_modules"] },
    rules: { "import/no-cycle": ["error", { ignoreExternal: true }] },
  },
  {
    // Access is decided in src/server/auth, at the bottom of the server: it reads the data layer and
    // the grants, never a service, an operation or a door (REST, tRPC, the console's session) above it.
    files: ["src/server/auth/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@/server/(services|operations|rest|trpc|session)(/|$)",
              message:
                "src/server/auth imports no service, operation or door: pass what it needs in, or move the code up.",
            },
          ],
        },
      ],
    },
  },
  {
    // Services are handed their database (the context's `db`: a change's own transaction, or the
    // pool for a read) and never reach for one themselves, so no write can slip outside the change
    // it belongs to. Types stay importable.
    files: ["src/server/services/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@/server/db/client",
              allowTypeImports: true,
              message: "A service uses the database it is handed (its context's `db`), not the global client.",
            },
            {
              name: "@/server/db/data-layer",
              allowTypeImports: true,
              message: "A service uses the database it is handed (its context's `db`), not a data layer of its own.",
            },
            {
              name: "@/server/db/unit-of-work",
              allowTypeImports: true,
              message: "A service runs in the transaction it is handed (`ctx.transaction` when it needs one).",
            },
            {
              name: "@/server/db/context",
              allowTypeImports: true,
              message: "A service is handed its context by its caller.",
            },
          ],
        },
      ],
    },
  },
  // Layout is Prettier's alone (`prettier --check` runs beside ESLint in `npm test`).
  prettier,
  globalIgnores([
    ".next/**",
    ".next-*/**",
    "bench/results/**",
    "out/**",
    "build/**",
    "node_modules/**",
    "src/generated/**",
    "next-env.d.ts",
    "test-results/**",
    "playwright-report/**",
    ".data/**",
  ]),
]);

export default eslintConfig;
