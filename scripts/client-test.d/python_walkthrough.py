"""The README walkthrough, a Stripe and a Google Play purchase through the Python client that openapi-python-client
generated from openapi.yaml (scripts/client-test).

Run by scripts/client-test with the generated package `subledger_client` on sys.path and the environment's addresses
in SUBLEDGER_URL, APPSTORE_SIM_URL, PLAY_SIM_URL, STRIPE_SIM_URL, SUBLEDGER_API_KEY and STRIPE_PRICE. Every call to
SubLedger goes through the generated client: its typed request bodies, and its models decode every answer (a missing
required field or an unknown enum value raises). Only the simulators' control routes, which stand for the customer's
phone or browser, are called with plain HTTP.
"""
import datetime
import json
import os
import sys
import time
import urllib.request

from subledger_client import AuthenticatedClient
from subledger_client.api.accounts import get_entitlements, get_subscriptions, get_transactions
from subledger_client.api.operations import health_ready
from subledger_client.api.submissions import (
    create_order,
    create_stripe_checkout,
    submit_google_play_purchase,
    submit_receipt,
    submit_signed_transaction,
    submit_stripe_checkout,
)
from subledger_client.models import (
    ChainState,
    CreateOrderBody,
    CreateStripeCheckoutBody,
    CreateStripeCheckoutResponse201,
    CreateStripeCheckoutResponse201Mode,
    EntitlementStore,
    Error,
    GetEntitlementsResponse200,
    GetSubscriptionsResponse200,
    GetTransactionsResponse200,
    HealthStatus,
    Order,
    OrderState,
    Submission,
    SubmitGooglePlayPurchaseBody,
    SubmitReceiptBody,
    SubmitSignedTransactionBody,
    SubmitStripeCheckoutBody,
    TransactionOutcomeResult,
    TransactionSource,
)
from subledger_client.types import Unset

PREFIX = "py"   # the accounts and Apple IDs of this run; the Swift client's start with "swift"
ENV = os.environ
SUBLEDGER = ENV["SUBLEDGER_URL"]
APPLE = ENV["APPSTORE_SIM_URL"]
GOOGLE = ENV["PLAY_SIM_URL"]
STRIPE = ENV["STRIPE_SIM_URL"]
PACKAGE = "com.example.subledger.android"


def expect(condition, what):
    if not condition:
        raise SystemExit("client-test (python): FAILED: " + what)
    print("python: ok:", what)


def call(operation, status, model, **arguments):
    """Calls a generated operation; the answer must have `status` and decode as `model`."""
    answer = operation.sync_detailed(client=CLIENT, **arguments)
    parsed = answer.parsed
    if answer.status_code != status or not isinstance(parsed, model):
        raise SystemExit("client-test (python): FAILED: %s answered %d (%s), expected %d with a %s: %s"
                         % (operation.__name__, answer.status_code, type(parsed).__name__, status, model.__name__,
                            answer.content[:500].decode(errors="replace")))
    return parsed


def control(base, path, body=None):
    """A simulator's control route (the customer's phone or browser), not SubLedger's API."""
    request = urllib.request.Request(base + path, data=json.dumps(body or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def entitlements(account, at=None):
    arguments = {"account_id": account}
    if at is not None:
        arguments["at"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return call(get_entitlements, 200, GetEntitlementsResponse200, **arguments).entitlements


def eventually(what, probe, seconds=30):
    """Asks `probe` once a second until it answers something true (webhooks arrive on their own)."""
    for _ in range(seconds):
        value = probe()
        if value:
            return value
        time.sleep(1)
    raise SystemExit("client-test (python): FAILED: %s within %ds" % (what, seconds))


def app_store():
    """The README's first purchase (a receipt), then start.md's reads and its refund, and a StoreKit 2 purchase."""
    account, apple_id = PREFIX + "-ada", PREFIX + "-ada@example.com"
    control(APPLE, "/control/apple-ids", {"apple_id": apple_id})
    order = call(create_order, 201, Order, body=CreateOrderBody(account_id=account, product_id="pro.monthly"))
    expect(order.account_id == account and order.state == OrderState.PENDING and order.order_id == order.app_account_token,
           "POST /v1/orders: a pending order, its app_account_token its id")
    token = str(order.app_account_token)
    buy = control(APPLE, "/control/purchases", {
        "apple_id": apple_id, "bundle_id": "com.example.app", "product_id": "pro.monthly",
        "app_account_token": token, "application_username": token})
    submission = call(submit_receipt, 200, Submission, body=SubmitReceiptBody(
        account_id=account, order_id=token, receipt_data=buy["receipt_data"]))
    expect(submission.account_id == account
           and [t.result for t in submission.transactions] == [TransactionOutcomeResult.APPLIED],
           "POST /v1/receipts: the purchase applied")
    now = entitlements(account)
    expect([e.entitlement_id for e in now] == ["pro"] and now[0].product_id == "pro.monthly"
           and now[0].state == ChainState.ACTIVE and isinstance(now[0].store, Unset)
           and isinstance(now[0].expires_at, datetime.datetime) and now[0].will_auto_renew is True,
           "GET /v1/accounts/%s/entitlements: pro, active, from the App Store, with its expiry" % account)
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=40)
    expect(entitlements(account, at=later) == [], "GET entitlements?at= in 40 days: none")
    subscriptions = call(get_subscriptions, 200, GetSubscriptionsResponse200, account_id=account).subscriptions
    expect([(s.original_transaction_id, s.state) for s in subscriptions]
           == [(buy["original_transaction_id"], ChainState.ACTIVE)], "GET subscriptions: the chain, active")
    transactions = call(get_transactions, 200, GetTransactionsResponse200, account_id=account).transactions
    expect([t.transaction_id for t in transactions] == [buy["transaction_id"]], "GET transactions: the purchase")

    control(APPLE, "/control/transactions/%s/refund" % buy["transaction_id"], {"reason": 0})
    eventually("the refund revoking pro", lambda: entitlements(account) == [])
    subscriptions = call(get_subscriptions, 200, GetSubscriptionsResponse200, account_id=account).subscriptions
    expect(subscriptions[0].state == ChainState.REVOKED, "after Apple's refund: no entitlement, the chain revoked")
    transactions = call(get_transactions, 200, GetTransactionsResponse200, account_id=account).transactions
    expect(isinstance(transactions[0].revocation_date, datetime.datetime), "the refunded transaction's revocation_date")

    # StoreKit 2: a signed transaction, bought without an order (an offer code redeemed outside the app).
    account, apple_id = PREFIX + "-bob", PREFIX + "-bob@example.com"
    control(APPLE, "/control/apple-ids", {"apple_id": apple_id})
    code = control(APPLE, "/control/purchases", {"apple_id": apple_id, "bundle_id": "com.example.app",
                                                 "product_id": "pro.monthly",
                                                 "offer": {"kind": "offer_code", "identifier": "WELCOME"}})
    submission = call(submit_signed_transaction, 200, Submission, body=SubmitSignedTransactionBody(
        account_id=account, signed_transaction=code["signed_transaction"]))
    expect([t.result for t in submission.transactions] == [TransactionOutcomeResult.APPLIED]
           and [e.entitlement_id for e in submission.entitlements] == ["pro"],
           "POST /v1/transactions: a StoreKit 2 purchase applied, pro in the answer")

    # A refusal decodes as the error shape.
    refusal = call(create_order, 422, Error, body=CreateOrderBody(account_id=account, product_id="no.such.product"))
    expect(refusal.error.code == "unknown_product", "POST /v1/orders for an unknown product: 422 unknown_product")


def stripe():
    """A web purchase: SubLedger's Checkout Session, paid in stripe-sim, credited from Stripe's webhooks, and the session
    submitted as the app server would on the customer's return."""
    account = PREFIX + "-dana"
    checkout = call(create_stripe_checkout, 201, CreateStripeCheckoutResponse201, body=CreateStripeCheckoutBody(
        account_id=account, product_id="prod_pro_web", price=ENV["STRIPE_PRICE"],
        success_url="https://example.com/paid"))
    expect(checkout.account_id == account and checkout.checkout_session_id.startswith("cs_")
           and checkout.mode == CreateStripeCheckoutResponse201Mode.SUBSCRIPTION,
           "POST /v1/checkout/stripe: a subscription Checkout Session")
    paid = control(STRIPE, "/control/checkout/sessions/%s/complete" % checkout.checkout_session_id)
    expect(paid["subscription"].startswith("sub_"), "stripe-sim: the session paid")
    found = eventually("a Stripe entitlement after the webhooks", lambda: entitlements(account))
    expect([(e.entitlement_id, e.store, e.state) for e in found] == [("pro", EntitlementStore.STRIPE, ChainState.ACTIVE)]
           and found[0].original_transaction_id == paid["subscription"],
           "GET entitlements: pro from Stripe, its chain the subscription")
    submitted = call(submit_stripe_checkout, 200, Submission, body=SubmitStripeCheckoutBody(
        account_id=account, checkout_session_id=checkout.checkout_session_id))
    expect([(t.result, t.original_transaction_id) for t in submitted.transactions]
           == [(TransactionOutcomeResult.APPLIED, paid["subscription"])],
           "POST /v1/purchases/stripe: the paid session applied")
    transactions = call(get_transactions, 200, GetTransactionsResponse200, account_id=account).transactions
    expect([t.source for t in transactions] == [TransactionSource.STRIPE_API], "GET transactions: the paid invoice, from Stripe's API")


def google_play():
    """A Google Play purchase: an order passed as the obfuscated account id, the token posted to SubLedger."""
    account = PREFIX + "-carol"
    order = call(create_order, 201, Order, body=CreateOrderBody(account_id=account, product_id="pro"))
    buy = control(GOOGLE, "/control/purchases", {"package_name": PACKAGE, "product_id": "pro", "base_plan_id": "monthly",
                                                 "obfuscated_external_account_id": str(order.app_account_token)})
    submission = call(submit_google_play_purchase, 200, Submission, body=SubmitGooglePlayPurchaseBody(
        account_id=account, package_name=PACKAGE, product_id="pro", purchase_token=buy["purchase_token"],
        order_id=buy["order_id"]))
    expect([t.result for t in submission.transactions] == [TransactionOutcomeResult.APPLIED],
           "POST /v1/purchases/google: applied")
    found = entitlements(account)
    expect([(e.entitlement_id, e.store, e.state) for e in found]
           == [("pro", EntitlementStore.GOOGLE_PLAY, ChainState.ACTIVE)],
           "GET entitlements: pro from Google Play, active")
    subscriptions = call(get_subscriptions, 200, GetSubscriptionsResponse200, account_id=account).subscriptions
    expect([s.product_id for s in subscriptions] == ["pro"] and subscriptions[0].will_auto_renew is True,
           "GET subscriptions: the Google Play subscription, renewing")


CLIENT = AuthenticatedClient(base_url=SUBLEDGER, token=ENV["SUBLEDGER_API_KEY"], raise_on_unexpected_status=True,
                             timeout=60)
ready = call(health_ready, 200, HealthStatus)
expect(ready.status.value == "ok", "GET /health/ready")
app_store()
stripe()
google_play()
print("python: passed")
sys.exit(0)
