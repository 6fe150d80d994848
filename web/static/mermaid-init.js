// Renders each <pre class="mermaid"> as SVG with the vendored mermaid.js.
// A chart that does not parse keeps its source and is marked
// data-mermaid="error"; the body gets data-mermaid="done" at the end.
(function () {
  var nodes = Array.prototype.slice.call(document.querySelectorAll("pre.mermaid"));
  function done() { document.body.setAttribute("data-mermaid", "done"); }
  if (!window.mermaid || nodes.length === 0) { done(); return; }
  window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral" });
  Promise.all(nodes.map(function (n) {
    return window.mermaid.parse(n.textContent).then(function () { return n; }, function (err) {
      n.setAttribute("data-mermaid", "error");
      n.setAttribute("title", "This chart could not be drawn: " + (err && err.message ? err.message : err));
      return null;
    });
  })).then(function (ok) {
    var good = ok.filter(Boolean);
    return window.mermaid.run({ nodes: good }).then(function () {
      good.forEach(function (n) {
        n.setAttribute("data-mermaid", n.querySelector("svg") ? "svg" : "error");
        var svg = n.querySelector("svg");
        if (svg) { svg.setAttribute("role", "img"); svg.setAttribute("aria-label", "Flowchart of the causal chain"); }
      });
    });
  }).catch(function () {
    nodes.forEach(function (n) { if (!n.getAttribute("data-mermaid")) n.setAttribute("data-mermaid", "error"); });
  }).then(done);
})();
