"""Paddle's official Python SDK (paddle-python-sdk) against paddle-sim (scripts/paddle-client-test)."""
import http.server
import json
import socket
import subprocess
import sys
import threading
import time
import types
import urllib.request

from paddle_billing import Client, Options
from paddle_billing.Entities.Events import EventTypeName
from paddle_billing.Entities.NotificationSettings import NotificationSettingType
from paddle_billing.Entities.Shared import (
    Action, AdjustmentType, CurrencyCode, CustomData, Duration, Interval, Money, PriceTrialPeriod, TaxCategory,
)
from paddle_billing.Entities.Subscriptions import SubscriptionEffectiveFrom
from paddle_billing.Exceptions.ApiError import ApiError
from paddle_billing.Exceptions.ApiErrors.CustomerApiError import CustomerApiError
from paddle_billing.Exceptions.ApiErrors.SubscriptionApiError import SubscriptionApiError
from paddle_billing.Notifications import Secret, Verifier
from paddle_billing.Notifications.Entities.UndefinedEntity import UndefinedEntity
from paddle_billing.Entities.Notifications import NotificationEvent
from paddle_billing.Resources.Adjustments.Operations import CreateAdjustment, CreateAdjustmentItem, ListAdjustments
from paddle_billing.Resources.Customers.Operations import CreateCustomer
from paddle_billing.Resources.Events.Operations import ListEvents
from paddle_billing.Resources.NotificationSettings.Operations import CreateNotificationSetting
from paddle_billing.Resources.Notifications.Operations import ListNotifications
from paddle_billing.Resources.Prices.Operations import CreatePrice, ListPrices
from paddle_billing.Resources.Products.Operations import CreateProduct
from paddle_billing.Resources.Shared.Operations import Pager
from paddle_billing.Resources.Subscriptions.Operations import (
    CancelSubscription, ListSubscriptions, PauseSubscription, ResumeSubscription,
)
from paddle_billing.Resources.Transactions.Operations import CreateTransaction, ListTransactions
from paddle_billing.Resources.Transactions.Operations.Create import TransactionCreateItem

API_KEY = "pdl_sdbx_apikey_client_test"
WEBHOOK_SECRET = "pdl_ntfset_client_test_secret"
received = {"/all": [], "/flaky": []}
flaky_seen = set()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        status = 200
        if self.path == "/flaky":
            # The first attempt of each notification fails: Paddle must retry it.
            notification = json.loads(body)["notification_id"]
            if notification not in flaky_seen:
                flaky_seen.add(notification)
                status = 500
        received.setdefault(self.path, []).append((body, dict(self.headers), status))
        self.send_response(status)
        self.end_headers()

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def control(base, path, body=None):
    request = urllib.request.Request(
        base + path, data=json.dumps(body or {}).encode(), method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def expect(condition, what):
    if not condition:
        raise SystemExit("paddle-client-test: FAILED: " + what)
    print("ok:", what)


def expect_error(call, error_class, code, what):
    try:
        call()
    except error_class as error:
        expect(error.error_code == code, "%s: %s %s" % (what, error_class.__name__, code))
        return error
    except ApiError as error:
        raise SystemExit("paddle-client-test: FAILED: %s: %r" % (what, error))
    raise SystemExit("paddle-client-test: FAILED: %s: no error" % what)


def main(sim_path):
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    port = free_port()
    sim = subprocess.Popen(
        [sim_path, "--port", str(port), "--api-key", API_KEY, "--webhook-secret-key", WEBHOOK_SECRET,
         "--webhook-url", "http://127.0.0.1:%d/all" % receiver.server_address[1],
         "--payout-currency", "EUR", "--payout-rate", "USD=0.92"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = "http://127.0.0.1:%d" % port
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/control/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        run(base, receiver.server_address[1])
    finally:
        sim.terminate()
        sim.wait(timeout=10)
        receiver.shutdown()


def run(base, receiver_port):
    # The SDK joins each path to `options.environment.base_url`: paddle-sim's address in place of api.paddle.com.
    paddle = Client(API_KEY, options=Options(types.SimpleNamespace(base_url=base)))

    flaky = paddle.notification_settings.create(CreateNotificationSetting(
        description="flaky receiver", destination="http://127.0.0.1:%d/flaky" % receiver_port,
        subscribed_events=[EventTypeName.SubscriptionCreated, EventTypeName.TransactionCompleted],
        type=NotificationSettingType.Url, include_sensitive_fields=False))
    expect(flaky.id.startswith("ntfset_") and flaky.endpoint_secret_key.startswith("pdl_ntfset_")
           and sorted(e.name.value for e in flaky.subscribed_events) == ["subscription.created", "transaction.completed"],
           "notification_settings.create with an endpoint_secret_key")

    # The catalog.
    product = paddle.products.create(CreateProduct(name="Pro", tax_category=TaxCategory.Standard))
    expect(product.id.startswith("pro_") and product.status.value == "active", "products.create")
    monthly = paddle.prices.create(CreatePrice(
        description="Pro monthly", product_id=product.id, unit_price=Money("999", CurrencyCode.USD),
        billing_cycle=Duration(Interval.Month, 1)))
    expect(monthly.billing_cycle.interval == Interval.Month and monthly.unit_price.amount == "999",
           "prices.create with billing_cycle and unit_price")
    trial = paddle.prices.create(CreatePrice(
        description="Pro monthly, 7-day trial", product_id=product.id, unit_price=Money("999", CurrencyCode.USD),
        billing_cycle=Duration(Interval.Month, 1), trial_period=PriceTrialPeriod(Interval.Day, 7)))
    expect(trial.trial_period.frequency == 7, "prices.create with trial_period")
    prices = list(paddle.prices.list(ListPrices(Pager(per_page=1))))
    expect([p.id for p in prices] == [monthly.id, trial.id], "prices.list pages one at a time through meta.pagination.next")
    ada = paddle.customers.create(CreateCustomer(email="ada@example.com", name="Ada"))
    expect(ada.id.startswith("ctm_") and ada.email == "ada@example.com", "customers.create")

    # A checkout: a transaction, then the customer pays (paddle-sim's control route stands for Paddle's checkout).
    transaction = paddle.transactions.create(CreateTransaction(
        items=[TransactionCreateItem(price_id=monthly.id, quantity=1)], customer_id=ada.id,
        custom_data=CustomData({"account_id": "ada"})))
    totals = transaction.details.totals
    expect(transaction.status.value == "ready" and totals.subtotal == "999" and totals.tax == "100"
           and totals.total == "1099" and totals.grand_total == "1099" and totals.fee is None,
           "transactions.create: ready, details.totals with Paddle's tax")
    paid = control(base, "/control/transactions/%s/checkout" % transaction.id)
    first = paddle.transactions.get(transaction.id)
    expect(first.status.value == "completed" and first.payments[0].status.value == "captured"
           and first.details.totals.fee == "105" and first.details.totals.earnings == "894"
           and first.subscription_id == paid["subscription_id"] and first.custom_data.data == {"account_id": "ada"},
           "checkout completed: payment captured, fee and earnings, custom_data kept")
    payout = first.details.payout_totals
    expect(payout.currency_code.value == "EUR" and payout.exchange_rate == "0.92" and payout.subtotal == "919"
           and payout.tax == "92" and payout.total == "1011" and payout.fee == "97" and payout.earnings == "822",
           "payout_totals in the payout currency (--payout-currency EUR, --payout-rate USD=0.92)")
    subscription = paddle.subscriptions.get(paid["subscription_id"])
    expect(subscription.status.value == "active"
           and subscription.current_billing_period.starts_at.isoformat().startswith("2025-01-01")
           and subscription.next_billed_at.isoformat().startswith("2025-02-01"),
           "subscriptions.get: active, current_billing_period, next_billed_at")
    listed = list(paddle.subscriptions.list(ListSubscriptions(customer_ids=[ada.id])))
    expect([s.id for s in listed] == [subscription.id], "subscriptions.list by customer")

    # A renewal on the clock.
    control(base, "/control/clock/advance", {"days": 31})
    renewals = list(paddle.transactions.list(ListTransactions(subscription_ids=[subscription.id])))
    expect(len(renewals) == 2 and renewals[1].origin.value == "subscription_recurring"
           and renewals[1].status.value == "completed"
           and renewals[1].billing_period.starts_at.isoformat().startswith("2025-02-01"),
           "clock advanced a month: a subscription_recurring transaction, completed")

    # A failed renewal: past_due, then the retry succeeds.
    control(base, "/control/customers/%s/payments" % ada.id, {"outcome": "decline"})
    control(base, "/control/clock/advance", {"days": 28})
    expect(paddle.subscriptions.get(subscription.id).status.value == "past_due", "declined renewal: past_due")
    control(base, "/control/customers/%s/payments" % ada.id, {"outcome": "succeed"})
    control(base, "/control/clock/advance", {"days": 3})
    expect(paddle.subscriptions.get(subscription.id).status.value == "active", "the retry pays: active again")

    # Pause at the period's end, then resume.
    paused = paddle.subscriptions.pause(subscription.id, PauseSubscription(
        effective_from=SubscriptionEffectiveFrom.NextBillingPeriod))
    expect(paused.scheduled_change.action.value == "pause", "subscriptions.pause: a scheduled_change")
    control(base, "/control/clock/advance", {"days": 31})
    expect(paddle.subscriptions.get(subscription.id).status.value == "paused", "the pause takes effect on the clock")
    resumed = paddle.subscriptions.resume(subscription.id, ResumeSubscription(effective_from="immediately"))
    expect(resumed.status.value == "active" and resumed.paused_at is None, "subscriptions.resume: active")

    # Cancel at the period's end; a change meanwhile is refused as Paddle refuses it.
    canceling = paddle.subscriptions.cancel(subscription.id, CancelSubscription(
        effective_from=SubscriptionEffectiveFrom.NextBillingPeriod))
    expect(canceling.scheduled_change.action.value == "cancel" and canceling.status.value == "active",
           "subscriptions.cancel at the period's end: scheduled_change")
    expect_error(lambda: paddle.subscriptions.pause(subscription.id, PauseSubscription()),
                 SubscriptionApiError, "subscription_locked_pending_changes", "pause while a cancel is scheduled")
    control(base, "/control/clock/advance", {"days": 32})
    expect(paddle.subscriptions.get(subscription.id).status.value == "canceled", "canceled on the clock")
    expect_error(lambda: paddle.subscriptions.cancel(subscription.id, CancelSubscription()),
                 SubscriptionApiError, "subscription_update_when_canceled", "cancel a canceled subscription")

    # Refunds: full (pending, approved ten minutes later), partial, and a chargeback.
    refund = paddle.adjustments.create(CreateAdjustment.full(Action.Refund, "requested by customer", first.id))
    expect(refund.status.value == "pending_approval" and refund.totals.total == "1099"
           and refund.totals.tax == "100", "adjustments.create: a full refund, pending approval")
    control(base, "/control/clock/advance", {"seconds": 600})
    approved = list(paddle.adjustments.list(ListAdjustments(transaction_ids=[first.id])))
    expect(approved[0].status.value == "approved" and approved[0].payout_totals.currency_code.value == "EUR"
           and approved[0].payout_totals.earnings == "822" and approved[0].totals.retained_fee == "0",
           "the refund is approved on the clock, stated in the payout currency, Paddle's fee given back")
    partial = paddle.adjustments.create(CreateAdjustment.partial(
        Action.Refund, [CreateAdjustmentItem(renewals[1].details.lineItems[0].id, AdjustmentType.Partial, "500")],
        "partial", renewals[1].id))
    expect(partial.totals.total == "500" and partial.type.value == "partial", "adjustments.create: a partial refund")
    expect_error(lambda: paddle.adjustments.create(CreateAdjustment.full(Action.Refund, "again", renewals[1].id)),
                 ApiError, "adjustment_pending_refund_request", "a refund while one is pending")
    third = list(paddle.transactions.list(ListTransactions(subscription_ids=[subscription.id])))[2]
    chargeback = control(base, "/control/transactions/%s/chargeback" % third.id)
    disputed = list(paddle.adjustments.list(ListAdjustments(transaction_ids=[third.id])))
    expect([a.id for a in disputed] == [chargeback["adjustment_id"]] and disputed[0].action.value == "chargeback"
           and disputed[0].status.value == "approved" and disputed[0].totals.retained_fee == disputed[0].totals.fee
           and disputed[0].payout_totals.chargeback_fee.amount == "1500"
           and paddle.transactions.get(third.id).details.adjusted_totals.total == "0",
           "a chargeback (control route): approved, the transaction's adjusted_totals at zero")

    # A trial: nothing charged at checkout, billed when the trial ends.
    grace = paddle.customers.create(CreateCustomer(email="grace@example.com"))
    trial_transaction = paddle.transactions.create(CreateTransaction(
        items=[TransactionCreateItem(price_id=trial.id, quantity=1)], customer_id=grace.id))
    started = control(base, "/control/transactions/%s/checkout" % trial_transaction.id)
    trialing = paddle.subscriptions.get(started["subscription_id"])
    expect(trialing.status.value == "trialing"
           and paddle.transactions.get(trial_transaction.id).details.totals.grand_total == "0",
           "a trial's checkout: trialing, nothing charged")
    control(base, "/control/clock/advance", {"days": 8})
    expect(paddle.subscriptions.get(trialing.id).status.value == "active", "the trial ends: billed and active")

    # Paddle's errors as the SDK's ApiError classes.
    expect_error(lambda: paddle.products.get("pro_01doesnotexist000000000000"), ApiError, "not_found", "unknown id")
    expect_error(lambda: paddle.customers.create(CreateCustomer(email="ada@example.com")),
                 CustomerApiError, "customer_already_exists", "a second customer with one email")
    invalid = expect_error(lambda: paddle.prices.create(CreatePrice(
        description="bad", product_id=product.id, unit_price=Money("-1", CurrencyCode.USD))),
        ApiError, "invalid_field", "a negative amount")
    expect(invalid.field_errors[0].field == "unit_price.amount", "invalid_field names the field")
    expect_error(lambda: Client("pdl_sdbx_apikey_wrong", options=Options(types.SimpleNamespace(base_url=base)))
                 .products.get(product.id), ApiError, "forbidden", "a wrong API key")

    # The events list, paged, for reconciliation.
    events = list(paddle.events.list(ListEvents(Pager(per_page=7))))
    types_seen = {e.event_type.value for e in events}
    expect(len(events) > 30 and all(not isinstance(e.data, UndefinedEntity) for e in events),
           "events.list: %d events over pages of 7, each decoded by the SDK" % len(events))
    for wanted in ["transaction.completed", "transaction.paid", "subscription.created", "subscription.activated",
                   "subscription.updated", "subscription.canceled", "subscription.past_due", "subscription.paused",
                   "subscription.resumed", "subscription.trialing", "adjustment.created", "adjustment.updated"]:
        expect(wanted in types_seen, "an event " + wanted)

    # Webhooks: each verified by the SDK's Verifier and decoded; a tampered body is refused.
    verifier = Verifier()
    all_hooks = received["/all"]
    for body, headers, _ in all_hooks:
        request = types.SimpleNamespace(body=body, headers=headers)
        if not verifier.verify(request, Secret(WEBHOOK_SECRET)):
            raise SystemExit("paddle-client-test: FAILED: a webhook's Paddle-Signature did not verify")
        event = NotificationEvent.from_request(request)
        if isinstance(event.data, UndefinedEntity):
            raise SystemExit("paddle-client-test: FAILED: the SDK could not decode " + event.event_type.value)
    expect(len(all_hooks) == len(events), "every event sent as a webhook (%d), each verified by Verifier" % len(all_hooks))
    body, headers, _ = all_hooks[0]
    expect(not verifier.verify(types.SimpleNamespace(body=body + b" ", headers=headers), Secret(WEBHOOK_SECRET)),
           "a tampered body fails verification")
    flaky_hooks = received["/flaky"]
    expect(all(verifier.verify(types.SimpleNamespace(body=b, headers=h), Secret(flaky.endpoint_secret_key))
               for b, h, _ in flaky_hooks), "the SDK-made setting's endpoint_secret_key signs its webhooks")
    pending = list(paddle.notifications.list(ListNotifications(notification_setting_ids=[flaky.id])))
    expect(pending[-1].status.value == "needs_retry" and pending[-1].times_attempted == 1
           and pending[-1].retry_at is not None, "notifications.list: a failed delivery needs_retry, with retry_at")
    control(base, "/control/clock/advance", {"seconds": 120})
    notifications = list(paddle.notifications.list(ListNotifications(notification_setting_ids=[flaky.id])))
    expect(len(notifications) == len(flaky_seen) > 3
           and all(n.status.value == "delivered" and n.times_attempted == 2 for n in notifications)
           and len(flaky_hooks) + 0 <= len(received["/flaky"]),
           "the clock advanced: every failed delivery retried once and delivered (%d)" % len(notifications))
    before = len(received["/flaky"])
    replayed = paddle.notifications.replay(notifications[0].id)
    again = paddle.notifications.get(replayed)
    # The flaky receiver fails this first attempt too (a new notification_id): attempted once, to be retried.
    expect(again.origin.value == "replay" and again.times_attempted == 1 and again.replayed_at is not None
           and again.payload.event_id == notifications[0].payload.event_id and len(received["/flaky"]) == before + 1,
           "notifications.replay: the same event sent again, origin replay")


if __name__ == "__main__":
    main(sys.argv[1])
