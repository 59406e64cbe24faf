import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const eslintConfig = defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // A leading underscore marks a value left out on purpose (e.g. a field dropped by destructuring).
      "@typescript-eslint/no-unused-vars": [
        "warn",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
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
