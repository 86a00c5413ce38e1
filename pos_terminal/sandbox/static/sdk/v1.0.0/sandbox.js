/*! Web payments sandbox app v1.0.0 | emulates the mobile app in a desktop browser; sandbox only */
/*
 * Load this before the SDK, from the sandbox, on a page under development:
 *
 *   <script src="SANDBOX/sdk/current/sandbox.js"></script>
 *   <script src="SANDBOX/sdk/current/web-payments.js"></script>
 *
 * It plays the app that holds the page: a fixed signed-in customer, and for each payment the
 * approval sheet (served by the sandbox, in a frame) with the amount, the merchant, a choice of
 * test cards (approving, declined, insufficient funds, expired), Approve and Reject. It works only
 * against the sandbox: loaded from anywhere else, or next to an SDK from elsewhere, it says so on
 * the page and every payment fails with SANDBOX_ONLY. A production page loads the SDK alone.
 */
(function (global, document) {
  "use strict";

  var script = document.currentScript;
  var base = script ? script.src.replace(/\/sdk\/[^/]+\/sandbox(\.min)?\.js(\?.*)?$/, "") : "";
  var sandboxOrigin = originOf(base);
  // The sandbox's demo customer (cus-ava), as the app knows them.
  var CUSTOMER = {
    firstName: "Ava",
    lastName: "Nguyen",
    email: "ava.nguyen@example.com",
    gender: "female",
    phone: "+61412345678"
  };
  var STYLE = [
    ".wps-bar{position:fixed;top:0;left:0;right:0;z-index:2147483000;background:#1d2430;color:#fff;",
    "font:600 13px/1.2 system-ui,sans-serif;padding:6px 12px;display:flex;gap:8px;align-items:center}",
    ".wps-bar b{background:#b35c00;border-radius:3px;padding:2px 6px;letter-spacing:.06em;font-size:11px}",
    ".wps-bar span{margin-left:auto;font-weight:400;opacity:.85}",
    "body.wps-held{padding-top:30px!important}",
    ".wps-overlay{position:fixed;inset:0;z-index:2147483001;background:rgba(16,22,32,.55);display:flex;",
    "flex-direction:column;align-items:center;justify-content:flex-end}",
    ".wps-sheet{width:100%;max-width:30rem;background:#fff;border-radius:16px 16px 0 0;overflow:hidden;",
    "box-shadow:0 -4px 24px rgba(0,0,0,.25);display:flex;flex-direction:column}",
    ".wps-head{display:flex;align-items:center;padding:8px 12px;border-bottom:1px solid #e6e9ee;",
    "font:600 14px system-ui,sans-serif;color:#1d2430}",
    ".wps-overlay .wps-head button{flex:none;width:auto;margin:0 0 0 auto;border:0;background:#e6e9ee;color:#1d2430;",
    "border-radius:6px;padding:6px 12px;font:600 13px system-ui,sans-serif;cursor:pointer}",
    ".wps-sheet iframe{border:0;width:100%;height:70vh;max-height:85vh;display:block}",
    ".wps-done{position:fixed;left:0;right:0;bottom:0;z-index:2147483001;background:#1d2430;color:#fff;",
    "display:flex;gap:12px;align-items:center;padding:12px 16px;font:15px system-ui,sans-serif}",
    ".wps-done button,.wps-closed button{flex:none;width:auto;margin:0 0 0 auto;border:0;background:#fff;",
    "color:#1d2430;border-radius:8px;padding:10px 18px;font:600 15px system-ui,sans-serif;cursor:pointer}",
    ".wps-closed button{margin:0;background:#1f6feb;color:#fff}",
    ".wps-closed{position:fixed;inset:0;z-index:2147483002;background:#f3f5f8;display:flex;flex-direction:column;",
    "align-items:center;justify-content:center;gap:12px;font:16px system-ui,sans-serif;color:#1d2430}",
    ".wps-warning{position:fixed;left:0;right:0;bottom:0;z-index:2147483003;background:#8c1d18;color:#fff;",
    "padding:12px 16px;font:600 15px/1.4 system-ui,sans-serif}"
  ].join("");

  function originOf(url) {
    try { return new URL(url, global.location.href).origin; } catch (e) { return null; }
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function whenBody(act) {
    if (document.body) act();
    else document.addEventListener("DOMContentLoaded", act);
  }

  function warn(sentence) {
    if (global.console) global.console.error("Web payments sandbox: " + sentence);
    whenBody(function () {
      var note = element("div", "wps-warning", sentence);
      note.setAttribute("role", "alert");
      document.body.appendChild(note);
    });
  }

  var notSandbox = "This sandbox script works only against the sandbox, and " + (base || "this address") +
    " is not a sandbox. Load it from the sandbox while developing; a production page loads only the SDK.";

  // The sandbox answers /sdk/environment; a copy of this script served from anywhere else finds no sandbox there.
  var confirmed = base
    ? global.fetch(base + "/sdk/environment", { credentials: "omit" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) { return Boolean(body && body.environment === "sandbox"); })
        .catch(function () { return false; })
    : Promise.resolve(false);
  confirmed.then(function (ok) { if (!ok) warn(notSandbox); });

  whenBody(function () {
    var style = element("style");
    style.textContent = STYLE;
    document.head.appendChild(style);
    var bar = element("div", "wps-bar");
    bar.appendChild(element("b", "", "SANDBOX APP"));
    bar.appendChild(element("span", "", "Signed in as " + CUSTOMER.firstName + " " + CUSTOMER.lastName));
    document.body.appendChild(bar);
    document.body.classList.add("wps-held");
  });

  var sheets = 0;

  function openSheet(order, reply) {
    sheets += 1;
    var name = "wps-sheet-" + sheets;
    var overlay = element("div", "wps-overlay");
    var sheet = element("div", "wps-sheet");
    sheet.setAttribute("role", "dialog");
    sheet.setAttribute("aria-label", "Approve payment (sandbox app)");
    var head = element("div", "wps-head", "Sandbox app");
    var cancel = element("button", "", "Cancel");
    cancel.type = "button";
    head.appendChild(cancel);
    var frame = element("iframe");
    frame.name = name;
    frame.title = "Approve payment";
    var form = element("form");
    form.method = "post";
    form.action = base + "/sandbox/app/approvals";
    form.target = name;
    form.hidden = true;
    [["order", JSON.stringify(order)], ["origin", global.location.origin]].forEach(function (pair) {
      var input = element("input");
      input.type = "hidden";
      input.name = pair[0];
      input.value = pair[1];
      form.appendChild(input);
    });
    sheet.appendChild(head);
    sheet.appendChild(frame);
    overlay.appendChild(sheet);
    overlay.appendChild(form);
    document.body.appendChild(overlay);

    function settle(answer) {
      global.removeEventListener("message", onMessage);
      overlay.remove();
      reply(answer);
    }
    function onMessage(event) {
      if (event.source !== frame.contentWindow || event.origin !== sandboxOrigin) return;
      var data = event.data || {};
      if (data.type === "webpayments:sheet" && typeof data.height === "number") {
        frame.style.height = Math.min(data.height + 4, global.innerHeight * 0.85) + "px";
      } else if (data.type === "webpayments:reply") {
        settle(data.reply);
      }
    }
    global.addEventListener("message", onMessage);
    cancel.addEventListener("click", function () {
      settle({ error: { code: "PAYMENT_REJECTED", message: "The customer closed the payment prompt." } });
    });
    form.submit();
  }

  function requestPayment(order, sdk, reply) {
    var sdkOrigin = sdk && sdk.url ? originOf(sdk.url) : sandboxOrigin;
    if (sdkOrigin !== sandboxOrigin) {
      var sentence = "This page loads the SDK from " + sdkOrigin + ", but the sandbox app works only with the " +
        "sandbox's SDK (" + base + "/sdk/current/web-payments.js).";
      warn(sentence);
      return reply({ error: { code: "SANDBOX_ONLY", message: sentence } });
    }
    confirmed.then(function (ok) {
      if (!ok) return reply({ error: { code: "SANDBOX_ONLY", message: notSandbox } });
      whenBody(function () { openSheet(order, reply); });
    });
  }

  function complete(message) {
    whenBody(function () {
      var previous = document.querySelector(".wps-done");
      if (previous) previous.remove();
      var done = element("div", "wps-done", message || "");
      var button = element("button", "", "Close");
      button.type = "button";
      button.addEventListener("click", close);
      done.appendChild(button);
      document.body.appendChild(done);
    });
  }

  function close() {
    whenBody(function () {
      var closed = element("div", "wps-closed");
      closed.setAttribute("role", "status");
      closed.appendChild(element("p", "", "The app closed this page (sandbox)."));
      var again = element("button", "", "Open it again");
      again.type = "button";
      again.addEventListener("click", function () { global.location.reload(); });
      closed.appendChild(again);
      document.body.appendChild(closed);
    });
  }

  global.__webPaymentsApp = {
    environment: "sandbox",
    customer: CUSTOMER,
    requestPayment: requestPayment,
    complete: complete,
    close: close
  };
})(window, document);
