// ESLint flat config: typescript-eslint in type-checked mode plus the house limits (STYLE.md).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import n from "eslint-plugin-n";
import simpleImportSort from "eslint-plugin-simple-import-sort";
import unicorn from "eslint-plugin-unicorn";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "**/*.js",
      "**/*.mjs",
      "**/*.cjs",
      "crds/**",
      "charts/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Explicit projects: tests in */test and e2e/ belong to tsconfig.tests.json, not to a package build.
        project: [
          "./starlark/tsconfig.json",
          "./gateway/tsconfig.json",
          "./operator/tsconfig.json",
          "./bench/tsconfig.json",
          "./tsconfig.tests.json",
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { "simple-import-sort": simpleImportSort, n, unicorn },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "simple-import-sort/imports": "error",
      "simple-import-sort/exports": "error",
      "n/prefer-node-protocol": "error",
      "unicorn/filename-case": ["error", { case: "kebabCase" }],
      complexity: ["warn", 10],
      "max-depth": ["error", 3],
    },
  },
  {
    // Tests read untyped JSON from the wire all the time; asserting on it is their job.
    files: ["**/*.test.ts", "**/test/**/*.ts", "e2e/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      complexity: "off",
    },
  },
  prettier,
);
