// MathJax 2 (served from the site itself, copied from Debian's libjs-mathjax by
// scripts/build_docs.py, so formulas render offline) set up for pymdownx.arithmatex's generic
// mode: only the spans arithmatex marks are typeset.
window.MathJax = {
  config: ["TeX-AMS_CHTML.js"],
  tex2jax: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    ignoreClass: ".*|",
    processClass: "arithmatex"
  },
  showMathMenu: false
};
// mkdocs-material swaps page content without a reload on some navigations: typeset again then.
document$.subscribe(() => {
  if (window.MathJax && window.MathJax.Hub) {
    window.MathJax.Hub.Queue(["Typeset", window.MathJax.Hub]);
  }
});
