// Shows every <time datetime> in the viewer's time zone; without
// JavaScript the server's UTC text stays.
(function () {
  var fmt = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short"
  });
  document.querySelectorAll("time[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (isNaN(d)) return;
    el.title = el.textContent;
    el.textContent = fmt.format(d);
  });
})();
