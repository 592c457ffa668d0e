/**
 * Tailwind 4 reads its settings from CSS; this file is loaded by `@config` in
 * app/globals.css and holds the design tokens shared by every page.
 */
import type { Config } from "tailwindcss";

const config: Config = {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
  // Dark mode: the `dark` variant in app/globals.css (system setting, or the saved theme).
  theme: {
    extend: {
      colors: {
        brand: {
          50: "#eef4ff",
          100: "#dbe6fe",
          400: "#6b93f8",
          500: "#4a6ff0",
          600: "#3552e3",
          700: "#2b41c8",
        },
      },
      fontFamily: {
        sans: ["system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "sans-serif"],
      },
      maxWidth: {
        page: "72rem",
      },
    },
  },
};

export default config;
