/* The approval sheet inside the sandbox app's frame: tells the app how tall it is and, once the
   customer has decided, hands the reply (a nonce or an error) to the page that asked, at its origin only. */
(function () {
  "use strict";
  var sheet = document.getElementById("sheet");
  var origin = sheet && sheet.getAttribute("data-origin");
  if (!origin || window.parent === window) return;
  function tell(message) { window.parent.postMessage(message, origin); }
  tell({ type: "webpayments:sheet", height: document.documentElement.scrollHeight });
  var reply = sheet.getAttribute("data-reply");
  if (reply) tell({ type: "webpayments:reply", reply: JSON.parse(reply) });
  var form = sheet.querySelector("form");
  var sent = false;
  if (form) form.addEventListener("submit", function (event) {
    if (sent) event.preventDefault();
    sent = true;
  });
})();
