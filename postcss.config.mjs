// Tailwind 4 runs as a PostCSS plugin; it also handles imports and vendor prefixes.
export default {
  plugins: { "@tailwindcss/postcss": {} },
};
