/* The example ordering page's script: the menu, guest checkout with the web payments SDK, and the
   back end's answers. The amounts always come from the back end; the page only says what the guest chose. */
(function () {
  "use strict";

  var API = "/examples/ordering/api/orders";
  var sdk = window.WebPayments;
  var quantities = {};
  var paying = false;
  var paidRef = null;
  var menu = document.querySelectorAll(".menu li");
  var payButton = document.getElementById("pay");
  var checkout = document.getElementById("checkout");
  var fields = ["name", "email", "phone"];

  function money(cents) {
    var whole = Math.floor(cents / 100), part = cents % 100;
    return "$" + whole.toLocaleString("en") + "." + (part < 10 ? "0" : "") + part;
  }

  function totals() {
    var total = 0, tax = 0;
    menu.forEach(function (line) {
      var quantity = quantities[line.dataset.item] || 0;
      total += quantity * Number(line.dataset.price);
      tax += quantity * Number(line.dataset.tax);
    });
    return { total: total, tax: tax };
  }

  function refresh() {
    var sums = totals();
    document.getElementById("total").textContent = money(sums.total);
    document.getElementById("tax").textContent = money(sums.tax);
    payButton.disabled = paying || sums.total === 0;
    payButton.textContent = paying ? "Waiting for your approval…" : sums.total ? "Pay " + money(sums.total) : "Choose from the menu";
  }

  menu.forEach(function (line) {
    var id = line.dataset.item;
    var shown = line.querySelector("output");
    function change(by) {
      quantities[id] = Math.max(0, Math.min(20, (quantities[id] || 0) + by));
      shown.textContent = quantities[id];
      refresh();
    }
    line.querySelector(".more").addEventListener("click", function () { change(1); });
    line.querySelector(".less").addEventListener("click", function () { change(-1); });
  });

  // The SDK knows the customer signed in to the app: the guest checkout starts filled in.
  if (sdk) {
    document.getElementById("name").value = [sdk.getFirstName(), sdk.getLastName()].filter(Boolean).join(" ");
    document.getElementById("email").value = sdk.getEmail() || "";
    document.getElementById("phone").value = sdk.getPhone() || "";
  }

  function say(id, message) {
    var note = document.getElementById(id);
    note.textContent = message || "";
    note.hidden = !message;
    var input = document.getElementById(id.replace("-error", ""));
    if (input && input.tagName === "INPUT") {
      if (message) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {})
    }).then(function (response) {
      return response.json().then(function (answer) { return { ok: response.ok, answer: answer }; });
    });
  }

  function text(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  function showSteps(steps) {
    var list = document.getElementById("steps");
    steps.forEach(function (step) {
      var item = document.createElement("li");
      var title = document.createElement("h3");
      title.textContent = step.title;
      var status = document.createElement("span");
      status.className = "status" + (step.response.status >= 400 ? " failed" : "");
      status.textContent = step.response.status;
      title.appendChild(status);
      var request = document.createElement("pre");
      var lines = [step.request.method + " " + step.request.url];
      Object.keys(step.request.headers).forEach(function (name) { lines.push(name + ": " + step.request.headers[name]); });
      if (step.request.body) lines.push("", text(step.request.body));
      request.textContent = lines.join("\n");
      var response = document.createElement("pre");
      response.textContent = text(step.response.body);
      item.appendChild(title);
      item.appendChild(request);
      item.appendChild(response);
      list.appendChild(item);
    });
  }

  function showOutcome(message, tone, steps) {
    var result = document.getElementById("result");
    var outcome = document.getElementById("outcome");
    result.hidden = false;
    outcome.textContent = message;
    outcome.className = tone;
    showSteps(steps || []);
  }

  function finishPayment(order, nonce) {
    post(API + "/" + encodeURIComponent(order.orderRef) + "/payment", { nonce: nonce }).then(function (reply) {
      paying = false;
      refresh();
      var transaction = reply.answer.transaction;
      var message = reply.answer.message + (transaction ? " Transaction " + transaction.id + "." : "");
      showOutcome(message, reply.ok ? "ok" : "error", reply.answer.steps);
      if (reply.ok) {
        paidRef = order.orderRef;
        document.getElementById("refund").hidden = false;
        sdk.complete("Thank you! Order " + order.orderRef + " is paid.");
      }
    });
  }

  checkout.addEventListener("submit", function (event) {
    event.preventDefault();
    if (paying) return;
    fields.concat(["payment"]).forEach(function (name) { say(name + "-error", ""); });
    var lines = Object.keys(quantities).filter(function (id) { return quantities[id] > 0; })
      .map(function (id) { return { id: id, quantity: quantities[id] }; });
    var customer = {};
    fields.forEach(function (name) { customer[name] = document.getElementById(name).value.trim(); });
    paying = true;
    refresh();
    post(API, { lines: lines, customer: customer }).then(function (reply) {
      if (!reply.ok) {
        paying = false;
        refresh();
        var errors = reply.answer.errors || {};
        Object.keys(errors).forEach(function (name) { say(name + "-error", errors[name]); });
        if (!Object.keys(errors).length) say("payment-error", reply.answer.message);
        return;
      }
      var order = reply.answer.order;
      if (!sdk) {
        paying = false;
        refresh();
        say("payment-error", "Payments work only inside the app.");
        return;
      }
      sdk.payment(order, function (err, result) {
        if (err) {
          paying = false;
          refresh();
          say("payment-error", err.message + " (" + err.code + ")");
          return;
        }
        finishPayment(order, result.nonce);
      });
    });
  });

  document.getElementById("refund").addEventListener("click", function () {
    var button = this;
    button.disabled = true;
    post(API + "/" + encodeURIComponent(paidRef) + "/refund").then(function (reply) {
      showOutcome(reply.answer.message, reply.ok ? "ok" : "error", reply.answer.steps);
      button.hidden = reply.ok;
      button.disabled = false;
    });
  });

  refresh();
})();
