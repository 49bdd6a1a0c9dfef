// Streamdown's maths plugin with KaTeX and its styles: about 70 KB of gzipped script, downloaded
// only when an answer holds maths (markdown-content.tsx).
import "katex/dist/katex.min.css";

export { math } from "@streamdown/math";
