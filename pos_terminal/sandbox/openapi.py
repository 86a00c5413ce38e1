"""The sandbox's OpenAPI document: FastAPI's, with what FastAPI cannot say by itself.

- its 422 validation shape is replaced by our 400 problem details;
- every route that takes a body may answer 413 (too large) and 422 (text that is not text);
- the typing rule of :mod:`pos_terminal.sandbox.wire` is in ``info.description``;
- response links (OpenAPI 3 ``links``) chain the resources, so a stateful client or fuzzer can go
  customer → check-in → create → get → patch → summary, nonce → charge → refund, and device
  authorization → approve or deny, taking each identifier from the answer before. No link carries
  a body into ``/v1``: its routes take a form or JSON, and a link cannot say which (schemathesis
  stops there).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from pos_terminal.sandbox.problems import PROBLEM_JSON
from pos_terminal.sandbox.wire import TYPE_RULE

DEMO_MERCHANT = "mer-cafe"
# The transaction id is the last segment of the create's Location (its body is exactly {"state": "authorized"}).
FROM_LOCATION = "$response.header.Location#regex:/transactions/([^/?#]+)$"
# A check that keeps every rule of contract section 7, charged to the check-in just made: the fields a link
# cannot leave to chance, since a random check almost never adds up.
VALID_CHECK: dict[str, Any] = {
    "refId": "linked-check",
    "terminalId": "LINKED-1",
    "chargeAmount": 110,
    "itemTotal": 110,
    "itemTax": 10,
    "discountTotal": 0,
    "discountTax": 0,
    "total": 110,
    "tax": 10,
    "balance": 110,
    "items": [{"id": "sku-1", "name": "Sugar", "quantity": 2, "amount": 110, "tax": 10}],
    "discounts": [],
    "payments": [],
    "customer": {"customerId": "$response.body#/customerId", "checkInId": "$response.body#/checkInId"},
}
WHOLE_BODY = {"x-schemathesis": {"merge_body": False}}


def _link(target: tuple[str, str], description: str, **definition: Any) -> dict[str, Any]:
    return {"target": target, "description": description, **definition}


# (path, method, status) of the answer -> link name -> target (path, method) and its parameters or body
LINKS: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {
    ("/sandbox/customers", "post", "201"): {
        "CheckIn": _link(
            ("/sandbox/checkins", "post"),
            "Check the new customer in at the demo merchant",
            requestBody={"merchantId": DEMO_MERCHANT, "customerId": "$response.body#/customerId"},
            **WHOLE_BODY,
        ),
        "GetCustomer": _link(
            ("/sandbox/customers/{customer_id}", "get"),
            "The customer's balance",
            parameters={"customer_id": "$response.body#/customerId"},
        ),
        "GetLedger": _link(
            ("/sandbox/customers/{customer_id}/ledger", "get"),
            "The customer's ledger",
            parameters={"customer_id": "$response.body#/customerId"},
        ),
    },
    ("/sandbox/checkins", "post", "201"): {
        "Charge": _link(
            ("/v4/transactions", "post"),
            "Charge the checked-in customer for a check that adds up",
            requestBody=VALID_CHECK,
            **WHOLE_BODY,
        ),
        "CheckOut": _link(
            ("/sandbox/checkins/{check_in_id}", "delete"),
            "Check the customer out",
            parameters={"check_in_id": "$response.body#/checkInId"},
        ),
    },
    ("/v4/transactions", "post", "201"): {
        "GetTransaction": _link(
            ("/v4/transactions/{transaction_id}", "get"),
            "The new transaction, by the id at the end of Location",
            parameters={"transaction_id": FROM_LOCATION},
        ),
        "ChangeState": _link(
            ("/v4/transactions/{transaction_id}", "patch"),
            "Complete or cancel the new transaction",
            parameters={"transaction_id": FROM_LOCATION},
        ),
        "Tip": _link(
            ("/sandbox/transactions/{transaction_id}/tip", "post"),
            "The customer adds a tip while it is authorized",
            parameters={"transaction_id": FROM_LOCATION},
        ),
        "Peek": _link(
            ("/sandbox/transactions/{transaction_id}", "get"),
            "The new transaction through the control surface",
            parameters={"transaction_id": FROM_LOCATION},
        ),
        "Summary": _link(
            ("/v4/summary", "get"),
            "The linked checks' terminal, summed since 2000 (a summary counts completed transactions only)",
            parameters={"from": "2000-01-01T00:00:00Z", "terminalId": VALID_CHECK["terminalId"]},
        ),
    },
    ("/v4/transactions/{transaction_id}", "get", "200"): {
        "ChangeState": _link(
            ("/v4/transactions/{transaction_id}", "patch"),
            "Move the transaction on",
            parameters={"transaction_id": "$response.body#/transactionId"},
        ),
        "Summary": _link(
            ("/v4/summary", "get"),
            "The summary from the transaction's creation",
            parameters={"from": "$response.body#/created", "terminalId": "$response.body#/terminalId"},
        ),
    },
    ("/v4/transactions/{transaction_id}", "patch", "200"): {
        "GetTransaction": _link(
            ("/v4/transactions/{transaction_id}", "get"),
            "Read the transaction back",
            parameters={"transaction_id": "$response.body#/transactionId"},
        ),
        "ChangeStateAgain": _link(
            ("/v4/transactions/{transaction_id}", "patch"),
            "Refund a completed transaction, or repeat a state",
            parameters={"transaction_id": "$response.body#/transactionId"},
        ),
        "Summary": _link(
            ("/v4/summary", "get"),
            "The summary that counts the transaction once complete",
            parameters={"from": "$response.body#/created"},
        ),
        "ListTransactions": _link(
            ("/v4/transactions", "get"),
            "The transactions created since this one",
            parameters={"from": "$response.body#/created", "to": "$response.body#/updated"},
        ),
    },
    ("/v4/customers", "get", "200"): {
        "ChargeFirst": _link(
            ("/v4/transactions", "post"),
            "Charge the customer who checked in last",
            requestBody={
                **VALID_CHECK,
                "customer": {"customerId": "$response.body#/0/customerId", "checkInId": "$response.body#/0/checkInId"},
            },
            **WHOLE_BODY,
        ),
    },
    ("/sandbox/transactions/{transaction_id}/tip", "post", "200"): {
        "ChangeState": _link(
            ("/v4/transactions/{transaction_id}", "patch"),
            "Complete the tipped transaction",
            parameters={"transaction_id": "$response.body#/transactionId"},
        ),
    },
    ("/sandbox/nonces", "post", "201"): {
        "GetNonce": _link(
            ("/v5/nonces/{nonce}", "get"),
            "The transaction behind the nonce",
            parameters={"nonce": "$response.body#/nonce"},
        ),
        "Charge": _link(
            ("/v5/transactions", "post"),
            "Charge the approved order",
            requestBody={
                "nonce": "$response.body#/nonce",
                "submit": True,
                "total": "$response.body#/transaction/total",
                "tax": "$response.body#/transaction/tax",
                "merchantId": "$response.body#/transaction/merchant/id",
            },
            **WHOLE_BODY,
        ),
    },
    ("/v5/transactions", "post", "200"): {
        "Refund": _link(
            ("/v5/transaction/{transaction_id}/refund", "post"),
            "Refund the charge",
            parameters={"transaction_id": "$response.body#/id"},
        ),
    },
    ("/v1/device_authorization", "post", "200"): {
        "Approve": _link(
            ("/sandbox/device/approve", "post"),
            "Approve the code as the demo merchant",
            requestBody={"userCode": "$response.body#/user_code", "merchantId": DEMO_MERCHANT},
            **WHOLE_BODY,
        ),
        "Deny": _link(
            ("/sandbox/device/deny", "post"),
            "Deny the code",
            requestBody={"userCode": "$response.body#/user_code"},
            **WHOLE_BODY,
        ),
    },
}


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """The document for ``app``, built once."""
    if app.openapi_schema:
        return app.openapi_schema
    description = f"{app.description}\n\n{TYPE_RULE}"
    schema = get_openapi(title=app.title, version=app.version, description=description, routes=app.routes)
    problem = {"content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}
    paths: dict[str, dict[str, Any]] = schema.get("paths", {})
    for path_item in paths.values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            if "HTTPValidationError" in str(responses.get("422", {})):
                del responses["422"]
            if operation.get("parameters") or operation.get("requestBody"):
                responses.setdefault("400", {"description": "Malformed request", **problem})
            if "application/json" in operation.get("requestBody", {}).get("content", {}):
                responses.setdefault("413", {"description": "The body is larger than the sandbox accepts", **problem})
                responses.setdefault("422", {"description": "Text that is not text, or a broken rule", **problem})
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    _add_links(paths)
    app.openapi_schema = schema
    return schema


def _add_links(paths: dict[str, dict[str, Any]]) -> None:
    for (path, method, status), links in LINKS.items():
        documented = {}
        for name, link in links.items():
            target_path, target_method = link["target"]
            definition = {key: value for key, value in link.items() if key != "target"}
            documented[name] = {"operationId": paths[target_path][target_method]["operationId"], **definition}
        paths[path][method]["responses"][status]["links"] = documented
