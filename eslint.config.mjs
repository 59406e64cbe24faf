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
