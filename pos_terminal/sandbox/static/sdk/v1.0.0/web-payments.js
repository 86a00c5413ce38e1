/*! Web payments SDK v1.0.0 | checkout and customer-information steps of pages inside the app */
/*
 * window.WebPayments, for an ordering page that runs inside the service's mobile app.
 *
 *   WebPayments.getFirstName(), getLastName(), getEmail(), getGender()  -> string, or null
 *   WebPayments.getPhone()               -> E.164 string ("+61412345678"), or null
 *   WebPayments.payment(order, callback) -> asks the customer to approve the order (service interface 2.2);
 *                                           callback(err, result) once: err null and result.nonce on success,
 *                                           else err is an Error with a stable err.code and a sentence.
 *   WebPayments.complete(message)        -> the app shows message (optional) and a Close button
 *   WebPayments.close()                  -> the app closes the page without asking
 *
 * The app that holds the page provides window.__webPaymentsApp (in a desktop browser, the sandbox
 * script does). The SDK checks every order before the app sees it.
 */
(function (global) {
  "use strict";

  var VERSION = "1.0.0";
  var INT32_MAX = 2147483647;
  var E164 = /^\+[1-9][0-9]{1,14}$/;
  var SDK_URL = global.document && global.document.currentScript ? global.document.currentScript.src : null;

  // Codes the callback can receive; each comes with a sentence meant for the customer or the developer.
  var SENTENCES = {
    INVALID_ORDER: "The order is not valid.",
    UNKNOWN_STORE: "No merchant is set up for this store.",
    PAYMENT_REJECTED: "The customer rejected the payment.",
    CARD_DECLINED: "The customer's card was declined.",
    INSUFFICIENT_FUNDS: "The customer has insufficient funds for this order.",
    CARD_EXPIRED: "The customer's card has expired.",
    PAYMENT_IN_PROGRESS: "A payment is already waiting for the customer; wait for its callback first.",
    APPROVAL_EXPIRED: "The payment prompt is no longer open; ask again.",
    APP_UNAVAILABLE: "This page is not open in the app, so the customer cannot be asked to pay.",
    SANDBOX_ONLY: "The sandbox app works only with the sandbox's SDK.",
    SERVICE_UNAVAILABLE: "The app could not reach the service; try again.",
    APP_ERROR: "The app could not ask the customer to pay."
  };

  function PaymentError(code, message, field) {
    var error = new Error(message || SENTENCES[code] || SENTENCES.APP_ERROR);
    error.name = "PaymentError";
    error.code = SENTENCES.hasOwnProperty(code) ? code : "APP_ERROR";
    if (field) error.field = field;
    return error;
  }

  function host() {
    var app = global.__webPaymentsApp;
    return app && typeof app.requestPayment === "function" ? app : null;
  }

  function profile(name) {
    var app = host();
    var value = app && app.customer ? app.customer[name] : null;
    return typeof value === "string" && value !== "" ? value : null;
  }

  function isCents(value, min) {
    return typeof value === "number" && value % 1 === 0 && value >= min && value <= INT32_MAX;
  }

  function isText(value, max) {
    return typeof value === "string" && value.length <= max;
  }

  function invalid(field, rule) {
    return PaymentError("INVALID_ORDER", "order." + field + " " + rule + ".", field);
  }

  // The order's own rules (2.2); the store mapping is the app's to check.
  function check(order) {
    if (order === null || typeof order !== "object" || Array.isArray(order)) {
      return PaymentError("INVALID_ORDER", "The order must be an object.", "order");
    }
    if (typeof order.orderStoreId !== "string" || order.orderStoreId === "" || order.orderStoreId.length > 64) {
      return invalid("orderStoreId", "must be the store's identifier, 1 to 64 characters");
    }
    if (order.orderRef != null && !isText(order.orderRef, 64)) return invalid("orderRef", "must be text of at most 64 characters");
    if (order.title != null && !isText(order.title, 200)) return invalid("title", "must be text of at most 200 characters");
    if (!isCents(order.total, 1)) return invalid("total", "must be a whole number of cents above zero");
    if (order.tax != null && !isCents(order.tax, 0)) return invalid("tax", "must be a whole number of cents, zero or more");
    if (order.tax != null && order.tax > order.total) return invalid("tax", "is included in total and cannot exceed it");
    if (order.items != null && (!Array.isArray(order.items) || order.items.length > 200)) {
      return invalid("items", "must be a list of at most 200 items");
    }
    var items = order.items || [];
    for (var i = 0; i < items.length; i++) {
      var item = items[i], at = "items[" + i + "]";
      if (item === null || typeof item !== "object") return invalid(at, "must be an object");
      if (typeof item.name !== "string" || item.name === "" || item.name.length > 200) return invalid(at + ".name", "must be a name");
      if (!isCents(item.quantity, 1)) return invalid(at + ".quantity", "must be a whole number, 1 or more");
      if (!isCents(item.amount, 0)) return invalid(at + ".amount", "must be a whole number of cents, zero or more");
      if (item.tax != null && !isCents(item.tax, 0)) return invalid(at + ".tax", "must be a whole number of cents, zero or more");
      if (item.tax != null && item.tax > item.amount) return invalid(at + ".tax", "is included in amount and cannot exceed it");
    }
    return null;
  }

  // What the app receives: the published fields only, copied, so later changes to the page's object do not leak in.
  function copy(order) {
    var out = { orderStoreId: order.orderStoreId, total: order.total };
    if (order.tax != null) out.tax = order.tax;
    if (order.orderRef != null) out.orderRef = order.orderRef;
    if (order.title != null) out.title = order.title;
    out.items = (order.items || []).map(function (item) {
      var line = { name: item.name, quantity: item.quantity, amount: item.amount };
      if (item.tax != null) line.tax = item.tax;
      return line;
    });
    return out;
  }

  var waiting = false;

  function payment(order, callback) {
    if (typeof callback !== "function") throw new TypeError("WebPayments.payment(order, callback) needs a callback function");
    var done = false;
    function finish(err, result) {
      if (done) return;
      done = true;
      global.setTimeout(function () { callback(err, result); }, 0);
    }
    var problem = check(order);
    if (problem) return finish(problem);
    var app = host();
    if (!app) return finish(PaymentError("APP_UNAVAILABLE"));
    if (waiting) return finish(PaymentError("PAYMENT_IN_PROGRESS"));
    waiting = true;
    function reply(answer) {
      if (done) return;
      waiting = false;
      if (answer && typeof answer.nonce === "string" && answer.nonce !== "") return finish(null, { nonce: answer.nonce });
      var error = (answer && answer.error) || {};
      finish(PaymentError(error.code, error.message, error.field));
    }
    try {
      app.requestPayment(copy(order), { version: VERSION, url: SDK_URL }, reply);
    } catch (e) {
      reply({ error: { code: "APP_ERROR" } });
    }
  }

  function complete(message) {
    if (message != null && typeof message !== "string") throw new TypeError("WebPayments.complete(message): message must be text");
    var app = host();
    if (app && typeof app.complete === "function") app.complete(message == null ? null : message);
  }

  function close() {
    var app = host();
    if (app && typeof app.close === "function") app.close();
  }

  global.WebPayments = {
    version: VERSION,
    getFirstName: function () { return profile("firstName"); },
    getLastName: function () { return profile("lastName"); },
    getEmail: function () { return profile("email"); },
    getGender: function () { return profile("gender"); },
    getPhone: function () {
      var phone = profile("phone");
      return phone && E164.test(phone) ? phone : null;
    },
    payment: payment,
    complete: complete,
    close: close
  };
})(window);
